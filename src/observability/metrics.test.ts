import { expect, test } from 'bun:test'
import { parsePrometheusText } from '../../test/helpers/prometheus-text.ts'
import type { AuditWriterStats } from '../stores/write-path/audit-writer.ts'
import { StoreEvents } from '../stores/batch-events.ts'
import { GatewayMetrics } from './metrics.ts'
import { formatMs } from './request-telemetry.ts'

test('store batch latency by store and backend, store errors by kind, in the exposition a scraper parses', async () => {
  const metrics = new GatewayMetrics(() => new Proxy({}, { get: () => 0 }) as AuditWriterStats)
  try {
    const events = new StoreEvents()
    events.attach(metrics.storeObserver)
    await events.time('audit', 'sqlite', async () => Bun.sleep(30))
    await events.time('audit', 'sqlite', async () => 1)
    await events.time('usage', 'postgres', async () => 1)
    const busy = Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' })
    await events.time('audit', 'sqlite', () => Promise.reject(busy)).catch(() => {})
    await events.time('audit', 'sqlite', () => Promise.reject(busy)).catch(() => {})
    await events.time('usage', 'sqlite', () => Promise.reject(new TypeError('bad row'))).catch(() => {})

    const families = parsePrometheusText((await metrics.expose()).text)
    const histogram = families.get('gateway_store_batch_duration_seconds')!
    expect(histogram.type).toBe('histogram')
    const sample = (name: string, labels: Record<string, string>) =>
      histogram.samples.concat(families.get('gateway_store_errors')?.samples ?? []).find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
        ?.value
    expect(sample('gateway_store_batch_duration_seconds_count', { store: 'audit', backend: 'sqlite' })).toBe(2)
    expect(sample('gateway_store_batch_duration_seconds_count', { store: 'usage', backend: 'postgres' })).toBe(1)
    expect(Number(sample('gateway_store_batch_duration_seconds_sum', { store: 'audit', backend: 'sqlite' }))).toBeGreaterThanOrEqual(0.025)
    // The 30 ms write is above the 25 ms bucket, the instant one below it.
    expect(sample('gateway_store_batch_duration_seconds_bucket', { store: 'audit', le: '0.025' })).toBe(1)
    expect(families.get('gateway_store_errors')!.type).toBe('counter')
    expect(sample('gateway_store_errors_total', { store: 'audit', backend: 'sqlite', kind: 'transient' })).toBe(2)
    expect(sample('gateway_store_errors_total', { store: 'usage', backend: 'sqlite', kind: 'permanent' })).toBe(1)
  } finally {
    metrics.stop()
  }
})

test('the overhead header value: milliseconds with two decimals', () => {
  expect(formatMs(0)).toBe('0.00')
  expect(formatMs(50_000)).toBe('0.05')
  expect(formatMs(1_234_567)).toBe('1.23')
  expect(formatMs(9_999_999)).toBe('10.00')
  expect(formatMs(12_345_678_901)).toBe('12345.68')
})

import { expect, test } from 'bun:test'
import { parsePrometheusText } from '../../test/helpers/prometheus-text.ts'
import type { AuditWriterStats } from '../stores/write-path/audit-writer.ts'
import { mergeGroupMetrics, type ProcessMetrics, WorkerMetricsGathering } from './group-metrics.ts'
import { GatewayMetrics } from './metrics.ts'

const zeroStats = () => new Proxy({}, { get: () => 0 }) as AuditWriterStats

/** A worker's metrics after `requests` requests, with one circuit in `circuit` state. */
async function workerMetrics(worker: string, requests: number, circuit: 'closed' | 'open'): Promise<ProcessMetrics> {
  const m = new GatewayMetrics(zeroStats)
  const labels = { endpoint: 'chat.completions', provider: 'one', model: 'gpt-4o', status_class: '2xx', stream: 'false' }
  m.requests.seriesFor('k', labels).value = requests
  m.duration.observe(m.duration.seriesFor('k', labels), 0.02 * requests)
  m.watchCircuits({ states: () => [['one/gpt-4o', circuit]] })
  const metrics = await m.registry.getMetricsAsJSON()
  m.stop()
  return { worker, metrics }
}

test('merged: counters and histograms summed, process metrics one series per worker, a circuit at its worst', async () => {
  const text = await mergeGroupMetrics([await workerMetrics('0', 3, 'closed'), await workerMetrics('1', 4, 'open')])
  const families = parsePrometheusText(text)
  const samples = [...families.values()].flatMap((f) => f.samples)
  const one = (name: string, labels: Record<string, string> = {}) => {
    const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    expect(found).toHaveLength(1)
    return Number(found[0]!.value)
  }
  expect(one('gateway_requests_total')).toBe(7)
  expect(one('gateway_request_duration_seconds_count')).toBe(2)
  expect(one('gateway_request_duration_seconds_sum')).toBeCloseTo(0.14, 6)
  expect(one('gateway_request_duration_seconds_bucket', { le: '0.1' })).toBe(2)
  expect(families.get('gateway_request_duration_seconds')!.type).toBe('histogram')
  expect(one('gateway_circuit_breaker_state', { target: 'one/gpt-4o' })).toBe(2)
  expect(samples.filter((s) => s.name === 'process_resident_memory_bytes').map((s) => s.labels.worker)).toEqual(['0', '1'])
})

test('the primary gathers every worker that answers in time, and adds its own process', async () => {
  const gathering = new WorkerMetricsGathering()
  const asked: number[] = []
  const answer = await workerMetrics('x', 1, 'closed')
  const started = performance.now()
  const result = gathering.gather([0, 1], (index, id) => {
    asked.push(index)
    // Worker 1 never answers (restarting): the scrape goes on without it.
    if (index === 0) setTimeout(() => gathering.receive(0, id, answer.metrics), 5)
  })
  const processes = await result
  expect(asked).toEqual([0, 1])
  expect(processes.map((p) => p.worker)).toEqual(['0', 'primary'])
  expect(performance.now() - started).toBeGreaterThanOrEqual(1900)
  expect(processes[1]!.metrics.some((m) => m.name === 'process_resident_memory_bytes')).toBe(true)
  // An answer after the deadline changes nothing.
  gathering.receive(1, 0, answer.metrics)
})

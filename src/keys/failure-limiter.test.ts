import { expect, test } from 'bun:test'
import { AuthFailureLimiter } from './failure-limiter.ts'

test('a burst over the limit is suppressed per client and reason, and counted', () => {
  let now = 0
  const limiter = new AuthFailureLimiter({ burst: 3, refillPerSecond: 1, now: () => now })
  const results = Array.from({ length: 5 }, () => limiter.shouldAudit('1.2.3.4', 'unknown'))
  expect(results).toEqual([true, true, true, false, false])
  expect(limiter.shouldAudit('1.2.3.4', 'expired')).toBe(true)
  expect(limiter.shouldAudit('5.6.7.8', 'unknown')).toBe(true)
  expect(limiter.suppressed).toBe(2)
  expect(limiter.takeSuppressed()).toBe(2)
  expect(limiter.takeSuppressed()).toBe(0)

  now += 1000
  expect(limiter.shouldAudit('1.2.3.4', 'unknown')).toBe(true)
  expect(limiter.shouldAudit('1.2.3.4', 'unknown')).toBe(false)
})

test('memory stays bounded under many sources', () => {
  const limiter = new AuthFailureLimiter({ burst: 1, maxClients: 100 })
  for (let i = 0; i < 10_000; i++) limiter.shouldAudit(`10.0.${i >> 8}.${i & 255}`, 'unknown')
  expect((limiter as unknown as { buckets: Map<string, unknown> }).buckets.size).toBeLessThanOrEqual(100)
})

test('reporting logs the suppressed count once and resets it', () => {
  const lines: unknown[] = []
  const log = { warn: (obj: unknown) => lines.push(obj) } as never
  const limiter = new AuthFailureLimiter({ burst: 1 })
  limiter.shouldAudit('ip', 'r')
  limiter.shouldAudit('ip', 'r')
  limiter.stopReporting(log)
  limiter.stopReporting(log)
  expect(lines).toEqual([expect.objectContaining({ suppressed_audit_entries: 1 })])
})

test("its throttle shares the limiter's clock and settings", () => {
  let now = 0
  const limiter = new AuthFailureLimiter({ throttle: { burst: 1, refillPerSecond: 1 }, now: () => now })
  limiter.throttle.recordFailure('9.9.9.9', 'a')
  expect(limiter.throttle.verdict(() => '9.9.9.9')).toEqual({ throttled: true, retryAfterSeconds: 1 })
  now += 1000
  expect(limiter.throttle.verdict(() => '9.9.9.9')).toEqual({ throttled: false })
})

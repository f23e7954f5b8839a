/**
 * @module How long to wait before the next try: the upstream's Retry-After (`retry-after-ms`, or
 * `retry-after` in seconds or as an HTTP date) when it sent one, else exponential backoff with jitter.
 */
import type { GatewayError } from '../../src/errors/gateway-error.ts'

export function retryAfterMs(error: GatewayError, now = Date.now()): number | undefined {
  const ms = Number(error.headers['retry-after-ms'])
  if (Number.isFinite(ms) && ms >= 0) return ms
  const raw = error.headers['retry-after']
  if (!raw) return undefined
  const seconds = Number(raw)
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000
  const date = Date.parse(raw)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

/** Exponential backoff with jitter: a random point in the upper half of `initial · 2^retry`, capped. */
export function backoffMs(retry: number, initialMs: number, maxMs: number, random = Math.random): number {
  const ceiling = Math.min(maxMs, initialMs * 2 ** retry)
  return Math.round(ceiling / 2 + (random() * ceiling) / 2)
}

/**
 * @module Keeps authentication failures from flooding the audit store and throttles clients that keep failing.
 * - Audit: every failure gets its answer; only its audit entry is dropped once a client (IP + reason) exceeds a
 *   token bucket. Dropped entries are counted and reported in the log periodically, so a flood stays visible
 *   without costing a row each.
 * - Throttle: a client address whose failures exceed a second bucket gets 429 with Retry-After instead of 401
 *   until it regains tokens. Only failures take tokens and the key is checked first, so a good key is never
 *   throttled, even from an address that also sends bad ones (clients behind one NAT are not locked out).
 */
import type { Logger } from '../log/logger.ts'

export interface FailureLimiterOptions {
  /** Failures audited in one burst per client and reason. */
  burst?: number
  /** Tokens regained per second. */
  refillPerSecond?: number
  /** Buckets kept at most; the least recently used go first (bounds memory under spoofed-source floods). */
  maxClients?: number
  /** Failures one address may make in a burst before it is throttled. */
  throttleBurst?: number
  /** Failures per second regained by a throttled address. */
  throttleRefillPerSecond?: number
  now?: () => number
}

interface Bucket {
  tokens: number
  at: number
}

export class AuthFailureLimiter {
  private readonly buckets = new Map<string, Bucket>()
  private readonly burst: number
  private readonly refillPerMs: number
  private readonly maxClients: number
  private readonly throttleBurst: number
  private readonly throttleRefillPerMs: number
  private readonly now: () => number
  private suppressedSinceReport = 0
  private suppressedTotal = 0
  private timer: ReturnType<typeof setInterval> | undefined

  constructor(options: FailureLimiterOptions = {}) {
    this.burst = options.burst ?? 20
    this.refillPerMs = (options.refillPerSecond ?? 0.2) / 1000
    this.maxClients = options.maxClients ?? 10_000
    this.throttleBurst = options.throttleBurst ?? 30
    this.throttleRefillPerMs = (options.throttleRefillPerSecond ?? 1) / 1000
    this.now = options.now ?? Date.now
  }

  /** Takes a token for this failure: true when it should be audited, false when the audit entry is suppressed. */
  shouldAudit(clientIp: string, reason: string): boolean {
    const allowed = this.take(`${clientIp}|${reason}`, this.burst, this.refillPerMs) === 0
    if (!allowed) {
      this.suppressedSinceReport++
      this.suppressedTotal++
    }
    return allowed
  }

  /**
   * Records one failed authentication of `clientIp`: 0 while it is within its allowance, else the seconds to wait
   * before it may try again (answer 429 with that Retry-After).
   */
  throttleFailure(clientIp: string): number {
    const waitMs = this.take(`throttle|${clientIp}`, this.throttleBurst, this.throttleRefillPerMs)
    return waitMs === 0 ? 0 : Math.max(1, Math.ceil(waitMs / 1000))
  }

  /** Takes one token from the bucket `key`: 0 when there was one, else the milliseconds until there is. */
  private take(key: string, burst: number, refillPerMs: number): number {
    const now = this.now()
    const bucket = this.buckets.get(key)
    let tokens = burst
    if (bucket) {
      tokens = Math.min(burst, bucket.tokens + (now - bucket.at) * refillPerMs)
      this.buckets.delete(key) // re-inserted below: Map order doubles as least-recently-used order
    } else if (this.buckets.size >= this.maxClients) {
      const oldest = this.buckets.keys().next().value
      if (oldest !== undefined) this.buckets.delete(oldest)
    }
    const allowed = tokens >= 1
    this.buckets.set(key, { tokens: allowed ? tokens - 1 : tokens, at: now })
    return allowed ? 0 : (1 - tokens) / refillPerMs
  }

  /** Suppressed audit entries since the process started. */
  get suppressed(): number {
    return this.suppressedTotal
  }

  /** Returns and resets the count since the last report. */
  takeSuppressed(): number {
    const n = this.suppressedSinceReport
    this.suppressedSinceReport = 0
    return n
  }

  /** Logs the suppressed count every `intervalMs` when it is not zero. */
  startReporting(log: Logger, intervalMs = 60_000): void {
    this.stopReporting()
    this.timer = setInterval(() => this.report(log), intervalMs)
    this.timer.unref?.()
  }

  stopReporting(log?: Logger): void {
    clearInterval(this.timer)
    this.timer = undefined
    if (log) this.report(log)
  }

  private report(log: Logger): void {
    const n = this.takeSuppressed()
    if (n > 0) log.warn({ suppressed_audit_entries: n, clients: this.buckets.size }, 'authentication failures over the limit were not audited')
  }
}

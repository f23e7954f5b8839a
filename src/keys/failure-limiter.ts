/**
 * @module What follows failed authentications:
 * - Audit: every failure gets its answer; only its audit entry is dropped once a client (IP + reason) exceeds a
 *   token bucket. Dropped entries are counted and reported in the log periodically, so a flood stays visible
 *   without costing a row each.
 * - Throttle: `throttle` (credential-throttle.ts) refuses an address that keeps guessing before its next
 *   credential is checked; every credential check consults it (KeyAuthenticator).
 */
import type { Logger } from '../log/logger.ts'
import { CredentialThrottle, type CredentialThrottleOptions } from './credential-throttle.ts'

export interface FailureLimiterOptions {
  /** Failures audited in one burst per client and reason. */
  burst?: number
  /** Tokens regained per second. */
  refillPerSecond?: number
  /** Buckets kept at most; the least recently used go first (bounds memory under spoofed-source floods). */
  maxClients?: number
  /** The credential throttle's settings (its clock is `now`). */
  throttle?: Omit<CredentialThrottleOptions, 'now'>
  now?: () => number
}

interface Bucket {
  tokens: number
  at: number
}

export class AuthFailureLimiter {
  /** Consulted by every credential check (KeyAuthenticator). */
  readonly throttle: CredentialThrottle
  private readonly buckets = new Map<string, Bucket>()
  private readonly burst: number
  private readonly refillPerMs: number
  private readonly maxClients: number
  private readonly now: () => number
  private suppressedSinceReport = 0
  private suppressedTotal = 0
  private timer: ReturnType<typeof setInterval> | undefined

  constructor(options: FailureLimiterOptions = {}) {
    this.burst = options.burst ?? 20
    this.refillPerMs = (options.refillPerSecond ?? 0.2) / 1000
    this.maxClients = options.maxClients ?? 10_000
    this.now = options.now ?? Date.now
    this.throttle = new CredentialThrottle({ ...options.throttle, now: this.now })
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

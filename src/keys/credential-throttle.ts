/**
 * @module Slows down online guessing of credentials, on every place a credential is checked (/v1, /admin,
 * /admin/session, /metrics, /ready). An address that has made too many *different* failed attempts is refused
 * before its next credential is even looked at, so a right guess made while throttled does not succeed.
 *
 * Trade-off (clients behind one NAT or proxy share an address):
 * - Only a presented value the address has not already failed with in the last `rememberMs` costs a token. A
 *   client that keeps sending the same wrong key (a revoked key left in a script, a typo) costs its address one
 *   token, so it never locks out good keys from the same address; it keeps getting its ordinary 401.
 * - Guessing needs a new value per try, so every guess costs a token: after `burst` of them the whole address is
 *   refused until it regains a token (`refillPerSecond`), good keys of its neighbours included. They get in again
 *   within the Retry-After once the guessing stops or slows below the refill rate.
 * - IPv6 addresses count per /64 (one site, like one NAT), so rotating through a prefix gains nothing.
 * Memory is bounded: at most `maxAddresses` address buckets and `maxRemembered` remembered failures, the least
 * recently used evicted first. A flood from more addresses than that makes the limiter forget old throttles.
 */

export interface CredentialThrottleOptions {
  /** Different failed credentials an address may present in a burst. */
  burst?: number
  /** Tokens an address regains per second. */
  refillPerSecond?: number
  /** How long a failed (address, credential) pair is remembered, so repeating it costs nothing more. */
  rememberMs?: number
  maxAddresses?: number
  maxRemembered?: number
  now?: () => number
}

interface Bucket {
  tokens: number
  at: number
}

/** What a credential check must do first. */
export type ThrottleVerdict = { throttled: false } | { throttled: true; retryAfterSeconds: number }

const NOT_THROTTLED: ThrottleVerdict = Object.freeze({ throttled: false })

export class CredentialThrottle {
  private readonly buckets = new Map<string, Bucket>()
  /** `address|credential` → when it last failed. Map order doubles as least-recently-used order. */
  private readonly remembered = new Map<string, number>()
  private readonly burst: number
  private readonly refillPerMs: number
  private readonly rememberMs: number
  private readonly maxAddresses: number
  private readonly maxRemembered: number
  private readonly now: () => number
  /** No address can be throttled after this time: until then every check must look its address up. */
  private throttledUntil = 0

  constructor(options: CredentialThrottleOptions = {}) {
    this.burst = options.burst ?? 30
    this.refillPerMs = (options.refillPerSecond ?? 1) / 1000
    this.rememberMs = options.rememberMs ?? 15 * 60_000
    this.maxAddresses = options.maxAddresses ?? 10_000
    this.maxRemembered = options.maxRemembered ?? 50_000
    this.now = options.now ?? Date.now
  }

  /**
   * Whether the caller at `address` may have a credential checked now. `address` is read only while some address
   * is throttled (reading it costs a system call; most requests never need it).
   */
  verdict(address: () => string): ThrottleVerdict {
    const now = this.now()
    if (now >= this.throttledUntil) return NOT_THROTTLED
    const bucket = this.buckets.get(addressGroup(address()))
    if (!bucket) return NOT_THROTTLED
    const tokens = this.refilled(bucket, now)
    return tokens >= 1 ? NOT_THROTTLED : { throttled: true, retryAfterSeconds: Math.max(1, Math.ceil((1 - tokens) / this.refillPerMs / 1000)) }
  }

  /**
   * Records a failed check of `credential` (a digest of what was presented, or `missing` / `malformed`) from
   * `address`. Costs the address a token unless it already failed with the same credential recently.
   */
  recordFailure(address: string, credential: string): void {
    const now = this.now()
    const group = addressGroup(address)
    const pair = `${group}|${credential}`
    const lastFailed = this.remembered.get(pair)
    if (lastFailed !== undefined) this.remembered.delete(pair)
    else evictOldest(this.remembered, this.maxRemembered)
    this.remembered.set(pair, now)
    if (lastFailed !== undefined && now - lastFailed < this.rememberMs) return

    const bucket = this.buckets.get(group)
    const tokens = bucket ? this.refilled(bucket, now) : this.burst
    if (bucket) this.buckets.delete(group)
    else evictOldest(this.buckets, this.maxAddresses)
    const left = Math.max(0, tokens - 1)
    this.buckets.set(group, { tokens: left, at: now })
    if (left < 1) this.throttledUntil = Math.max(this.throttledUntil, now + (1 - left) / this.refillPerMs)
  }

  /** Address buckets and remembered failures held (for tests of the memory bound). */
  get size(): { addresses: number; remembered: number } {
    return { addresses: this.buckets.size, remembered: this.remembered.size }
  }

  private refilled(bucket: Bucket, now: number): number {
    return Math.min(this.burst, bucket.tokens + (now - bucket.at) * this.refillPerMs)
  }
}

function evictOldest(map: Map<string, unknown>, max: number): void {
  if (map.size < max) return
  const oldest = map.keys().next().value
  if (oldest !== undefined) map.delete(oldest)
}

/**
 * The unit an address is throttled by: an IPv4 address as it is (also when written IPv4-mapped, `::ffff:a.b.c.d`),
 * an IPv6 address by its /64.
 */
export function addressGroup(address: string): string {
  if (!address.includes(':')) return address
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped) return mapped[1]!
  const zoneless = address.split('%')[0]!.toLowerCase()
  const [head = '', tail] = zoneless.split('::')
  const headGroups = head ? head.split(':') : []
  const tailGroups = tail ? tail.split(':') : []
  const missing = tail === undefined ? 0 : 8 - headGroups.length - tailGroups.length
  const groups = [...headGroups, ...Array<string>(Math.max(0, missing)).fill('0'), ...tailGroups]
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`
}

/**
 * @module A credential (a bearer token, a set of temporary AWS keys) kept fresh for one provider: fetched once on first use, shared by every request, renewed in
 * the background once it is within its refresh margin of expiring (requests keep using the still-valid token
 * meanwhile), and fetched again in the request's path only when it has expired or was never had. A failure is
 * remembered briefly, so a burst of requests against a broken token service makes one call, not one each.
 */
import { GatewayError } from '../errors/gateway-error.ts'

export interface Expiring<T> {
  value: T
  /** Milliseconds since the epoch; Infinity for a credential that does not expire (static keys). */
  expiresAt: number
}

/** A bearer token and when it expires. */
export type ExpiringToken = Expiring<string>

export interface RefreshingOptions {
  /** Renewal starts this long before expiry (at most half the token's lifetime). */
  refreshMarginMs?: number
  /** How long a failed fetch answers for itself before the next try. */
  failureMemoryMs?: number
  now?: () => number
}

export class Refreshing<T> {
  private current: Expiring<T> | undefined
  private fetchedAt = 0
  private inFlight: Promise<Expiring<T> | GatewayError> | undefined
  private failure: { error: GatewayError; at: number } | undefined
  private readonly margin: number
  private readonly failureMemory: number
  private readonly now: () => number

  constructor(
    private readonly fetchValue: () => Promise<Expiring<T> | GatewayError>,
    { refreshMarginMs = 5 * 60_000, failureMemoryMs = 2_000, now = Date.now }: RefreshingOptions = {},
  ) {
    this.margin = refreshMarginMs
    this.failureMemory = failureMemoryMs
    this.now = now
  }

  async get(): Promise<T | GatewayError> {
    const now = this.now()
    const token = this.current
    if (token && now < token.expiresAt) {
      if (now >= this.renewAt(token)) void this.fetch() // the old token still works while a new one is fetched
      return token.value
    }
    if (this.failure && now - this.failure.at < this.failureMemory) return this.failure.error
    const fetched = await this.fetch()
    return fetched instanceof GatewayError ? fetched : fetched.value
  }

  private renewAt(token: Expiring<T>): number {
    if (token.expiresAt === Number.POSITIVE_INFINITY) return token.expiresAt
    const lifetime = token.expiresAt - this.fetchedAt
    return token.expiresAt - Math.min(this.margin, lifetime / 2)
  }

  private fetch(): Promise<Expiring<T> | GatewayError> {
    this.inFlight ??= this.fetchValue()
      .then((result) => {
        if (result instanceof GatewayError) this.failure = { error: result, at: this.now() }
        else {
          this.current = result
          this.fetchedAt = this.now()
          this.failure = undefined
        }
        return result
      })
      .finally(() => {
        this.inFlight = undefined
      })
    return this.inFlight
  }
}

/** A bearer token kept fresh. */
export type RefreshingToken = Refreshing<string>

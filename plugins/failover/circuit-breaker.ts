/**
 * @module A circuit per target: after `failureThreshold` consecutive failures the target is skipped for
 * `cooldownMs`; then one trial request is let through (half-open), whose outcome closes or re-opens it.
 */

interface Circuit {
  failures: number
  openUntil: number
  trialInFlight: boolean
}

export class CircuitBreaker {
  private readonly circuits = new Map<string, Circuit>()

  constructor(
    private readonly failureThreshold: number,
    private readonly cooldownMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether a call to the target may go ahead now. */
  allows(target: string): boolean {
    const c = this.circuits.get(target)
    if (!c || c.failures < this.failureThreshold) return true
    if (this.now() < c.openUntil || c.trialInFlight) return false
    c.trialInFlight = true
    return true
  }

  succeeded(target: string): void {
    if (this.circuits.size > 0) this.circuits.delete(target)
  }

  failed(target: string): void {
    const c = this.circuits.get(target) ?? { failures: 0, openUntil: 0, trialInFlight: false }
    c.failures++
    c.trialInFlight = false
    if (c.failures >= this.failureThreshold) c.openUntil = this.now() + this.cooldownMs
    this.circuits.set(target, c)
  }

  state(target: string): 'closed' | 'open' | 'half-open' {
    const c = this.circuits.get(target)
    if (!c || c.failures < this.failureThreshold) return 'closed'
    return this.now() < c.openUntil ? 'open' : 'half-open'
  }
}

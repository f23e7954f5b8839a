/**
 * @module A circuit per target, shared by every workflow (a target's health does not depend on which workflow
 * calls it): after `failure_threshold` consecutive failures the target is skipped for `cooldown_ms`; then one
 * trial request is let through (half-open), whose outcome closes or re-opens it. The thresholds come from the
 * calling workflow's settings. Only targets the operator named get a circuit (the failover plugin decides), and
 * the map is bounded all the same: past `maxCircuits` the circuit that failed longest ago is dropped.
 */

export interface CircuitPolicy {
  failure_threshold: number
  cooldown_ms: number
}

interface Circuit {
  failures: number
  openUntil: number
  trialInFlight: boolean
}

export class CircuitBreaker {
  private readonly circuits = new Map<string, Circuit>()

  constructor(
    private readonly now: () => number = Date.now,
    private readonly maxCircuits = 1024,
  ) {}

  /** Whether a call to the target may go ahead now. */
  allows(target: string, policy: CircuitPolicy): boolean {
    const c = this.circuits.get(target)
    if (!c || c.failures < policy.failure_threshold) return true
    if (this.now() < c.openUntil || c.trialInFlight) return false
    c.trialInFlight = true
    return true
  }

  succeeded(target: string): void {
    if (this.circuits.size > 0) this.circuits.delete(target)
  }

  failed(target: string, policy: CircuitPolicy): void {
    let c = this.circuits.get(target)
    // Re-inserted below, so the map's order is the order of last failure and the first key the oldest.
    if (c) this.circuits.delete(target)
    else {
      c = { failures: 0, openUntil: 0, trialInFlight: false }
      if (this.circuits.size >= this.maxCircuits) this.circuits.delete(this.circuits.keys().next().value!)
    }
    c.failures++
    c.trialInFlight = false
    if (c.failures >= policy.failure_threshold) c.openUntil = this.now() + policy.cooldown_ms
    this.circuits.set(target, c)
  }

  /**
   * Every target that failed since its last success, with its state as the policy of its last failure left it
   * (for the metrics scrape, which knows no workflow).
   */
  *states(): Iterable<[string, 'closed' | 'open' | 'half-open']> {
    const now = this.now()
    for (const [target, c] of this.circuits) yield [target, c.openUntil === 0 ? 'closed' : now < c.openUntil ? 'open' : 'half-open']
  }

  state(target: string, policy: CircuitPolicy): 'closed' | 'open' | 'half-open' {
    const c = this.circuits.get(target)
    if (!c || c.failures < policy.failure_threshold) return 'closed'
    return this.now() < c.openUntil ? 'open' : 'half-open'
  }
}

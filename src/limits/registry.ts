/**
 * @module The budget and rate-limit definitions in memory. Declared ones (YAML) get stable ids derived from
 * their content, so restarts do not duplicate them; admin changes apply to the next request, on every replica
 * (the change feed makes the others reload).
 */
import { GatewayError, gatewayErrors } from '../errors/gateway-error.ts'
import { silentLogger, type Logger } from '../log/logger.ts'
import type { Changes } from '../stores/changes.ts'
import { Snapshot } from '../stores/snapshot.ts'
import type { LimitStore } from '../stores/types.ts'
import { budgetInputSchema, rateLimitInputSchema, type Budget, type RateLimit } from './definitions.ts'

function invalid(error: import('zod').ZodError): GatewayError {
  return gatewayErrors.fromZod(error, { code: 'invalid_limit', subject: 'body' })
}

function declaredId(prefix: string, input: unknown): string {
  return `${prefix}_cfg_${new Bun.CryptoHasher('sha256').update(JSON.stringify(input)).digest('hex').slice(0, 12)}`
}

export class LimitRegistry {
  budgets: Budget[] = []
  rateLimits: RateLimit[] = []
  private readonly snapshot: Snapshot<{ budgets: Budget[]; rateLimits: RateLimit[] }>

  constructor(
    private readonly store: LimitStore,
    options: { changes?: Changes; log?: Logger } = {},
  ) {
    this.changes = options.changes
    this.snapshot = new Snapshot({
      name: 'limits',
      load: async () => ({ budgets: await store.budgets(), rateLimits: await store.rateLimits() }),
      apply: (loaded) => {
        this.budgets = loaded.budgets
        this.rateLimits = loaded.rateLimits
      },
      changes: options.changes,
      topic: 'limits',
      log: options.log ?? silentLogger,
    })
  }

  private readonly changes: Changes | undefined

  async load(declared: { budgets: unknown[]; rate_limits: unknown[] }): Promise<void> {
    const existing = new Set([...(await this.store.budgets()).map((b) => b.id), ...(await this.store.rateLimits()).map((r) => r.id)])
    for (const raw of declared.budgets) {
      const id = declaredId('bud', raw)
      if (!existing.has(id)) await this.addBudget(raw, id)
    }
    for (const raw of declared.rate_limits) {
      const id = declaredId('rl', raw)
      if (!existing.has(id)) await this.addRateLimit(raw, id)
    }
    if (!(await this.snapshot.start())) throw new Error(`could not load the limits: ${this.snapshot.status().lastError}`)
  }

  stop(): void {
    this.snapshot.stop()
  }

  snapshotStatus() {
    return this.snapshot.status()
  }

  /** Reloads now; tells the other replicas when this one changed a definition. */
  async reload(changed = false): Promise<void> {
    if (!(await this.snapshot.refresh())) throw new Error(`could not reload the limits: ${this.snapshot.status().lastError}`)
    if (changed) await this.changes?.publish('limits')
  }

  async addBudget(raw: unknown, id = `bud_${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}`): Promise<Budget> {
    const parsed = budgetInputSchema.safeParse(raw)
    if (!parsed.success) throw invalid(parsed.error)
    const budget: Budget = { ...parsed.data, id, created_at: new Date().toISOString() }
    await this.store.saveBudget(budget)
    await this.reload(true)
    return budget
  }

  async addRateLimit(raw: unknown, id = `rl_${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}`): Promise<RateLimit> {
    const parsed = rateLimitInputSchema.safeParse(raw)
    if (!parsed.success) throw invalid(parsed.error)
    const limit: RateLimit = { ...parsed.data, id, created_at: new Date().toISOString() }
    await this.store.saveRateLimit(limit)
    await this.reload(true)
    return limit
  }

  async deleteBudget(id: string): Promise<boolean> {
    const done = await this.store.deleteBudget(id)
    await this.reload(done)
    return done
  }

  async deleteRateLimit(id: string): Promise<boolean> {
    const done = await this.store.deleteRateLimit(id)
    await this.reload(done)
    return done
  }
}

/**
 * @module The budget and rate-limit definitions in memory. Declared ones (YAML) get stable ids derived from
 * their content, so restarts do not duplicate them; admin changes apply to the next request, on every replica
 * (the change feed makes the others reload).
 */
import type { z } from 'zod'
import { type GatewayError, gatewayErrors } from '../errors/gateway-error.ts'
import { silentLogger, type Logger } from '../log/logger.ts'
import type { Changes } from '../stores/changes.ts'
import { Snapshot } from '../stores/snapshot.ts'
import type { LimitStore } from '../stores/types.ts'
import { budgetInputSchema, rateLimitInputSchema, type Budget, type RateLimit } from './definitions.ts'

/** A definition as stored: its input with an id and a creation time. */
type Stored<Input> = Input & { id: string; created_at: string }

const newId = (prefix: string) => `${prefix}_${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}`

function invalid(error: z.ZodError): GatewayError {
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
    await this.snapshot.startOrThrow()
  }

  stop(): void {
    this.snapshot.stop()
  }

  snapshotStatus() {
    return this.snapshot.status()
  }

  addBudget(raw: unknown, id = newId('bud')): Promise<Budget> {
    return this.add(budgetInputSchema, raw, id, (budget) => this.store.saveBudget(budget))
  }

  addRateLimit(raw: unknown, id = newId('rl')): Promise<RateLimit> {
    return this.add(rateLimitInputSchema, raw, id, (limit) => this.store.saveRateLimit(limit))
  }

  /** Validates a definition, stores it under `id` and reloads, so the next request sees it. */
  private async add<Input>(schema: z.ZodType<Input>, raw: unknown, id: string, save: (definition: Stored<Input>) => Promise<void>): Promise<Stored<Input>> {
    const parsed = schema.safeParse(raw)
    if (!parsed.success) throw invalid(parsed.error)
    const definition = { ...parsed.data, id, created_at: new Date().toISOString() }
    await save(definition)
    await this.snapshot.reload(true)
    return definition
  }

  async deleteBudget(id: string): Promise<boolean> {
    const done = await this.store.deleteBudget(id)
    await this.snapshot.reload(done)
    return done
  }

  async deleteRateLimit(id: string): Promise<boolean> {
    const done = await this.store.deleteRateLimit(id)
    await this.snapshot.reload(done)
    return done
  }
}

/**
 * @module A batch's hold on its owner's budgets. At creation every line's cost is estimated as the budget plugin
 * estimates a live request's (its prompt counted, its output limit or 1,024 tokens, at the price of the model it
 * resolves to today: the batch price when that model's provider batch API will take the line, else the list price)
 * and the sum is reserved in every budget that covers the key or user path, atomically
 * against the limit: a batch that does not fit is refused as a live request would be (429 `budget_exceeded`). As
 * each line ends its estimate is released; the line's own request adds its real cost, as any request does (the
 * budget plugin reserves nothing again for it: src/pipeline/context.ts `budgetHeld`).
 */
import type { GatewayError } from '../errors/gateway-error.ts'
import { budgetWindow, MICRO } from '../limits/budget-spend.ts'
import { type CostModel, costAt } from '../limits/cost.ts'
import { inScope } from '../limits/definitions.ts'
import type { LimitRegistry } from '../limits/registry.ts'
import { estimatedPromptTokens, requestedOutputTokens } from '../limits/request-estimate.ts'
import type { ModelCatalog } from '../models/catalog.ts'
import type { EndpointId } from '../pipeline/context.ts'
import { endpoint } from '../protocols/endpoints.ts'
import type { Counters } from '../stores/types.ts'
import { exhaustedBudget } from '../limits/budget-exhausted.ts'

/** The output a line may produce when it does not say (the budget plugin's default estimate). */
const DEFAULT_OUTPUT_TOKENS = 1024

export interface BatchBudgetDeps {
  limits: LimitRegistry
  counters: Counters
  catalog: ModelCatalog
  costModel: CostModel
  /** Whether a provider batch API takes lines of this endpoint row to this provider instance (the executor's choice). */
  handsOver: (providerName: string, endpointId: string) => boolean
}

export type BudgetHold = { key: string; ttlMs: number }[]

export class BatchBudget {
  constructor(private readonly deps: BatchBudgetDeps) {}

  /** Whether any budget covers this owner. */
  applies(keyId: string | undefined, userPath: string | undefined): boolean {
    return this.deps.limits.budgets.some((b) => inScope(b.scope, keyId, userPath))
  }

  /** A line's estimated cost in micro-dollars; 0 when its model does not resolve or has no price. */
  async estimate(endpointId: string, body: Record<string, unknown>): Promise<number> {
    const model = typeof body.model === 'string' ? body.model : undefined
    const resolved = model ? this.deps.catalog.resolve(model) : undefined
    if (!resolved?.ok) return 0
    const { api } = endpoint(endpointId as EndpointId)
    const { costModel } = this.deps
    const tokens = {
      prompt: await estimatedPromptTokens(api, body),
      cachedPrompt: 0,
      cacheWrite: 0,
      completion: requestedOutputTokens(api, body, DEFAULT_OUTPUT_TOKENS),
      unitUsage: api.usage?.requestedUnits?.(body),
    }
    const usd = costAt(costModel, resolved.target, tokens, this.deps.handsOver(resolved.target.providerName, endpointId))
    return Math.round((usd ?? 0) * MICRO)
  }

  /** Reserves `micro` in every budget covering the owner; the counters held, or the budget that refused. */
  async reserve(keyId: string | undefined, userPath: string | undefined, micro: number, now = Date.now()): Promise<BudgetHold | GatewayError> {
    const held: (BudgetHold[number] & { micro: number })[] = []
    for (const budget of this.deps.limits.budgets.filter((b) => inScope(b.scope, keyId, userPath))) {
      const w = budgetWindow(budget, now)
      const limit = Math.round(budget.limit_usd * MICRO)
      const result = await this.deps.counters.addWithin(w.key, micro, micro > 0 ? limit : limit - 1, w.ttlMs)
      if (!result.ok) {
        for (const h of held) await this.deps.counters.add(h.key, -h.micro, h.ttlMs)
        return exhaustedBudget(budget, w.end, now)
      }
      held.push({ key: w.key, ttlMs: w.ttlMs, micro })
    }
    return held.map(({ key, ttlMs }) => ({ key, ttlMs }))
  }

  /** Gives back lines' estimates (they ended: their real cost, if any, was added by their requests). */
  async release(hold: BudgetHold | null, micro: number): Promise<void> {
    if (!hold || micro <= 0) return
    for (const h of hold) await this.deps.counters.add(h.key, -micro, h.ttlMs)
  }
}

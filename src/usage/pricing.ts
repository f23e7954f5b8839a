/**
 * @module The price table and the cost of a request. A price is looked up by `<provider>/<model>` first, then by
 * the upstream model id, exactly and then by the longest matching prefix (so `gpt-4o-mini-2024-07-18` finds
 * `gpt-4o-mini`). Overrides (YAML, admin API) win over the bundled defaults.
 */
import { z } from 'zod'
import type { CostModel, TokenCounts } from '../limits/cost.ts'
import type { ResolvedTarget } from '../providers/types.ts'
import { DEFAULT_PRICES } from './default-prices.ts'

export const modelPriceSchema = z.strictObject({
  /** USD per million uncached input tokens. */
  input: z.number().min(0),
  /** USD per million cached input tokens (cache reads); defaults to `input`. */
  cached_input: z.number().min(0).optional(),
  /** USD per million cache-write input tokens; defaults to `input`. */
  cache_write: z.number().min(0).optional(),
  /** USD per million output tokens (reasoning included). */
  output: z.number().min(0),
})
export type ModelPrice = z.infer<typeof modelPriceSchema>

export interface PricedCost {
  costUsd: number
  priced: boolean
}

const DEFAULTS = new Map(Object.entries(DEFAULT_PRICES))

export class PriceTable implements CostModel {
  private overrides = new Map<string, ModelPrice>()
  /** Lookups per selector: a price search scans every prefix, which is too slow to repeat on each request. */
  private readonly resolved = new Map<string, ModelPrice | null>()

  constructor(overrides: Record<string, ModelPrice> = {}) {
    this.setOverrides(overrides)
  }

  setOverrides(overrides: Record<string, ModelPrice>): void {
    this.overrides = new Map(Object.entries(overrides))
    this.resolved.clear()
  }

  /** Effective table: defaults with overrides on top. */
  entries(): { model: string; price: ModelPrice; source: 'default' | 'override' }[] {
    const out = new Map<string, { model: string; price: ModelPrice; source: 'default' | 'override' }>()
    for (const [model, price] of Object.entries(DEFAULT_PRICES)) out.set(model, { model, price, source: 'default' })
    for (const [model, price] of this.overrides) out.set(model, { model, price, source: 'override' })
    return [...out.values()].sort((a, b) => a.model.localeCompare(b.model))
  }

  priceFor(target: Pick<ResolvedTarget, 'selector' | 'model'>): ModelPrice | undefined {
    let price = this.resolved.get(target.selector)
    if (price === undefined) {
      price = this.search(target) ?? null
      if (this.resolved.size > 10_000) this.resolved.clear()
      this.resolved.set(target.selector, price)
    }
    return price ?? undefined
  }

  private search(target: Pick<ResolvedTarget, 'selector' | 'model'>): ModelPrice | undefined {
    for (const table of [this.overrides, DEFAULTS]) {
      const exact = table.get(target.selector) ?? table.get(target.model)
      if (exact) return exact
    }
    let best: { length: number; price: ModelPrice } | undefined
    for (const table of [this.overrides, DEFAULTS]) {
      for (const [key, price] of table) {
        if ((target.model.startsWith(key) || target.selector.startsWith(key)) && key.length > (best?.length ?? 0)) best = { length: key.length, price }
      }
      if (best) return best.price
    }
    return undefined
  }

  cost(target: Pick<ResolvedTarget, 'selector' | 'model'>, tokens: TokenCounts): PricedCost {
    const price = this.priceFor(target)
    if (!price) return { costUsd: 0, priced: false }
    const cached = Math.min(tokens.cachedPrompt, tokens.prompt)
    const cacheWrite = Math.min(tokens.cacheWrite, tokens.prompt - cached)
    const uncached = tokens.prompt - cached - cacheWrite
    const usd =
      (uncached * price.input + cached * (price.cached_input ?? price.input) + cacheWrite * (price.cache_write ?? price.input) + tokens.completion * price.output) / 1_000_000
    return { costUsd: usd, priced: true }
  }

  costUsd(target: ResolvedTarget, tokens: TokenCounts): number | undefined {
    const c = this.cost(target, tokens)
    return c.priced ? c.costUsd : undefined
  }
}

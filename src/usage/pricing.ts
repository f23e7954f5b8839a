/**
 * @module The price table and the cost of a request. A price is looked up by `<provider>/<model>` first, then by
 * the upstream model id, exactly and then by the longest matching prefix (so `gpt-4o-mini-2024-07-18` finds
 * `gpt-4o-mini`). Overrides (YAML, admin API) win over the bundled defaults.
 */
import { z } from 'zod'
import type { CostModel, TokenCounts } from '../limits/cost.ts'
import type { ResolvedTarget } from '../providers/types.ts'
import { DEFAULT_PRICES } from './default-prices.ts'
import { USAGE_UNITS, type UnitUsage } from './units.ts'

/**
 * The price of work done per unit (src/usage/units.ts): `usd` per unit, or the price of the unit's variant. A
 * variant's key is tried as the usage's `unit_variant` (`1792x1024/hd` for images), then as its size with any
 * quality (`1792x1024/*`), then as any size with its quality (a star, a slash, `hd`); `usd` prices every other
 * variant (the API's defaults).
 */
export const unitPriceSchema = z.strictObject({
  unit: z.enum(USAGE_UNITS),
  usd: z.number().min(0),
  variants: z.record(z.string().max(64), z.number().min(0)).optional(),
})
export type UnitPrice = z.infer<typeof unitPriceSchema>

export const modelPriceSchema = z.strictObject({
  /** USD per million uncached input tokens. */
  input: z.number().min(0),
  /** USD per million cached input tokens (cache reads); defaults to `input`. */
  cached_input: z.number().min(0).optional(),
  /** USD per million cache-write input tokens; defaults to `input`. */
  cache_write: z.number().min(0).optional(),
  /** USD per million output tokens (reasoning included). */
  output: z.number().min(0),
  /** USD per unit of non-token work (images, characters, search units), added to the tokens' price. */
  per_unit: unitPriceSchema.optional(),
  /**
   * The price of work done through the provider's own batch API, as a fraction of this price (0.5: half price, the
   * batch discount of OpenAI, Anthropic and Gemini); the full price when absent.
   */
  batch_multiplier: z.number().gt(0).max(1).optional(),
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
    return { costUsd: usd + unitCost(price.per_unit, tokens.unitUsage), priced: true }
  }

  costUsd(target: ResolvedTarget, tokens: TokenCounts): number | undefined {
    const c = this.cost(target, tokens)
    return c.priced ? c.costUsd : undefined
  }

  /** The cost of the same work done through the provider's batch API (its `batch_multiplier` of the price). */
  batchCost(target: Pick<ResolvedTarget, 'selector' | 'model'>, tokens: TokenCounts): PricedCost {
    const c = this.cost(target, tokens)
    return c.priced ? { costUsd: c.costUsd * (this.priceFor(target)?.batch_multiplier ?? 1), priced: true } : c
  }

  batchCostUsd(target: ResolvedTarget, tokens: TokenCounts): number | undefined {
    const c = this.batchCost(target, tokens)
    return c.priced ? c.costUsd : undefined
  }
}

/** USD of the units of work a request did at the model's per-unit price; 0 without either, or for another unit. */
export function unitCost(price: UnitPrice | undefined, usage: UnitUsage | undefined): number {
  if (!price || !usage || usage.unit !== price.unit) return 0
  const [size = '', quality = ''] = usage.unit_variant.split('/')
  const variants = price.variants ?? {}
  const each = variants[usage.unit_variant] ?? variants[`${size}/*`] ?? variants[`*/${quality}`] ?? price.usd
  return usage.units * each
}

/**
 * @module Bundled list prices in USD per million tokens: the `prices` of every provider type row, gathered from the
 * provider folders' manifests (`plugins/providers/<id>/manifest.ts`). Override any entry in YAML (`pricing:`) or
 * through PUT /admin/pricing/{model}; an unknown model costs 0 and is reported as unpriced. A row's batch discount
 * (`batchPriceMultiplier`) is each of its prices' `batch_multiplier`.
 */
import { PROVIDER_TYPES } from '../config/provider-catalog.ts'
import type { ModelPrice } from './pricing.ts'

export const DEFAULT_PRICES: Readonly<Record<string, ModelPrice>> = Object.assign(
  {},
  ...Object.values(PROVIDER_TYPES).map((row) => (row.batchPriceMultiplier === undefined ? row.prices : withBatchMultiplier(row.prices, row.batchPriceMultiplier))),
)

function withBatchMultiplier(prices: Readonly<Record<string, ModelPrice>>, multiplier: number): Record<string, ModelPrice> {
  return Object.fromEntries(Object.entries(prices).map(([model, price]) => [model, { ...price, batch_multiplier: price.batch_multiplier ?? multiplier }]))
}

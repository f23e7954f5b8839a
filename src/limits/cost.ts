/**
 * @module What budgets need to know about money: the USD cost of token counts (and units of non-token work) on a
 * target. The usage feature's price table implements it.
 */
import type { ResolvedTarget } from '../providers/types.ts'
import type { UnitUsage } from '../usage/units.ts'

export interface TokenCounts {
  prompt: number
  cachedPrompt: number
  cacheWrite: number
  completion: number
  /** Work priced per unit (images, audio seconds, …), when the request did some. */
  unitUsage?: UnitUsage
}

export interface CostModel {
  /** USD for these tokens on the target; undefined when the model has no price. */
  costUsd(target: ResolvedTarget, tokens: TokenCounts): number | undefined
  /** USD for these tokens done through the provider's batch API (its batch discount); undefined when unpriced. */
  batchCostUsd?(target: ResolvedTarget, tokens: TokenCounts): number | undefined
}

export const unpricedCostModel: CostModel = { costUsd: () => undefined }

/** USD for these tokens at the batch price when `batch` and the model has one, else at the live price. */
export function costAt(costModel: CostModel, target: ResolvedTarget, tokens: TokenCounts, batch: boolean): number | undefined {
  return batch && costModel.batchCostUsd ? costModel.batchCostUsd(target, tokens) : costModel.costUsd(target, tokens)
}

/**
 * @module What budgets need to know about money: the USD cost of token counts on a target. The usage feature's
 * price table implements it.
 */
import type { ResolvedTarget } from '../providers/types.ts'

export interface TokenCounts {
  prompt: number
  cachedPrompt: number
  cacheWrite: number
  completion: number
}

export interface CostModel {
  /** USD for these tokens on the target; undefined when the model has no price. */
  costUsd(target: ResolvedTarget, tokens: TokenCounts): number | undefined
}

export const unpricedCostModel: CostModel = { costUsd: () => undefined }

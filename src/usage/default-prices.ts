/**
 * @module Bundled list prices in USD per million tokens, from the providers' public pricing pages as of
 * 2026-11 (standard tier, no batch discounts). Override any entry in YAML (`pricing:`) or through
 * PUT /admin/pricing/{model}; an unknown model costs 0 and is reported as unpriced.
 */
import type { ModelPrice } from './pricing.ts'

export const DEFAULT_PRICES: Record<string, ModelPrice> = {
  // OpenAI
  'gpt-4o': { input: 2.5, cached_input: 1.25, output: 10 },
  'gpt-4o-mini': { input: 0.15, cached_input: 0.075, output: 0.6 },
  'gpt-4.1': { input: 2, cached_input: 0.5, output: 8 },
  'gpt-4.1-mini': { input: 0.4, cached_input: 0.1, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, cached_input: 0.025, output: 0.4 },
  'gpt-5': { input: 1.25, cached_input: 0.125, output: 10 },
  'gpt-5-mini': { input: 0.25, cached_input: 0.025, output: 2 },
  'gpt-5-nano': { input: 0.05, cached_input: 0.005, output: 0.4 },
  o3: { input: 2, cached_input: 0.5, output: 8 },
  'o3-mini': { input: 1.1, cached_input: 0.55, output: 4.4 },
  'o4-mini': { input: 1.1, cached_input: 0.275, output: 4.4 },
  // Anthropic (cache writes at 1.25x input for the 5-minute cache, reads at 0.1x)
  'claude-opus-4': { input: 15, cached_input: 1.5, cache_write: 18.75, output: 75 },
  'claude-sonnet-4': { input: 3, cached_input: 0.3, cache_write: 3.75, output: 15 },
  'claude-haiku-4': { input: 1, cached_input: 0.1, cache_write: 1.25, output: 5 },
  'claude-3-5-haiku': { input: 0.8, cached_input: 0.08, cache_write: 1, output: 4 },
  // Google
  'gemini-2.5-pro': { input: 1.25, cached_input: 0.31, output: 10 },
  'gemini-2.5-flash': { input: 0.3, cached_input: 0.075, output: 2.5 },
  'gemini-2.5-flash-lite': { input: 0.1, cached_input: 0.025, output: 0.4 },
  // Others
  'deepseek-chat': { input: 0.27, cached_input: 0.07, output: 1.1 },
  'deepseek-reasoner': { input: 0.55, cached_input: 0.14, output: 2.19 },
  'llama-3.3-70b-versatile': { input: 0.59, output: 0.79 },
  'llama-3.1-8b-instant': { input: 0.05, output: 0.08 },
  'mistral-large': { input: 2, output: 6 },
  'mistral-small': { input: 0.1, output: 0.3 },
  'grok-4': { input: 3, cached_input: 0.75, output: 15 },
}

import { expect, test } from 'bun:test'
import { PriceTable, unitCost } from './pricing.ts'

const dalle3 = { unit: 'image' as const, usd: 0.04, variants: { '1792x1024/*': 0.08, '*/hd': 0.08, '1792x1024/hd': 0.12 } }

test('a unit price: the exact variant, then the size with any quality, then the quality at any size, then the default', () => {
  const images = (units: number, unit_variant: string) => ({ unit: 'image' as const, units, unit_variant })
  expect(unitCost(dalle3, images(1, '1792x1024/hd'))).toBe(0.12)
  expect(unitCost(dalle3, images(2, '1792x1024/standard'))).toBe(0.16)
  expect(unitCost(dalle3, images(1, '1024x1024/hd'))).toBe(0.08)
  expect(unitCost(dalle3, images(3, '/'))).toBeCloseTo(0.12, 12)
  // Another unit, or no price: nothing.
  expect(unitCost(dalle3, { unit: 'character', units: 100, unit_variant: '' })).toBe(0)
  expect(unitCost(undefined, images(1, '/'))).toBe(0)
})

test("the table adds the units' price to the tokens' price", () => {
  const table = new PriceTable({ 'img-model': { input: 1, output: 2, per_unit: dalle3 } })
  const target = { selector: 'p/img-model', model: 'img-model' }
  const tokens = { prompt: 1_000_000, cachedPrompt: 0, cacheWrite: 0, completion: 0 }
  expect(table.cost(target, tokens)).toEqual({ costUsd: 1, priced: true })
  expect(table.cost(target, { ...tokens, unitUsage: { unit: 'image', units: 2, unit_variant: '1792x1024/hd' } }).costUsd).toBeCloseTo(1.24, 12)
})

test("a batch price is the model's price times its batch_multiplier: the bundled rows' 50 % for OpenAI, Anthropic and Gemini", () => {
  const table = new PriceTable()
  const tokens = { prompt: 1_000_000, cachedPrompt: 0, cacheWrite: 0, completion: 1_000_000 }
  const at = (selector: string, model: string) => ({ selector, model })
  // gpt-4o-mini: $0.15 in, $0.60 out; in a batch half of it.
  expect(table.cost(at('openai/gpt-4o-mini', 'gpt-4o-mini'), tokens).costUsd).toBeCloseTo(0.75, 12)
  expect(table.batchCost(at('openai/gpt-4o-mini', 'gpt-4o-mini'), tokens)).toEqual({ costUsd: 0.375, priced: true })
  expect(table.batchCost(at('claude/claude-sonnet-4-5', 'claude-sonnet-4-5'), tokens).costUsd).toBeCloseTo(9, 12)
  expect(table.batchCost(at('google/gemini-2.5-flash', 'gemini-2.5-flash'), tokens).costUsd).toBeCloseTo(1.4, 12)
  // A provider without a batch discount in the table, and an unpriced model.
  expect(table.batchCost(at('ds/deepseek-chat', 'deepseek-chat'), tokens).costUsd).toBeCloseTo(1.37, 12)
  expect(table.batchCost(at('x/unknown-model', 'unknown-model'), tokens)).toEqual({ costUsd: 0, priced: false })
  expect(table.batchCostUsd({ selector: 'x/unknown-model', model: 'unknown-model', providerName: 'x', providerType: 'openai' }, tokens)).toBeUndefined()
})

test('an override states its own batch price; without batch_multiplier it is charged in full', () => {
  const table = new PriceTable({ 'gpt-4o-mini': { input: 1, output: 1 }, 'cheap-batch': { input: 1, output: 1, batch_multiplier: 0.25 } })
  const tokens = { prompt: 1_000_000, cachedPrompt: 0, cacheWrite: 0, completion: 0 }
  expect(table.batchCost({ selector: 'openai/gpt-4o-mini', model: 'gpt-4o-mini' }, tokens).costUsd).toBe(1)
  expect(table.batchCost({ selector: 'p/cheap-batch', model: 'cheap-batch' }, tokens).costUsd).toBe(0.25)
})

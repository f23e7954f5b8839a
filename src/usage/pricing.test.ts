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

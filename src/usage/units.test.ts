import { describe, expect, test } from 'bun:test'
import { makeContext } from '../../test/helpers/plugin-harness.ts'
import type { TokenUsage } from '../pipeline/snapshots.ts'
import type { Outcome } from '../pipeline/types.ts'
import type { ResolvedTarget } from '../providers/types.ts'
import { requestUsageSummarySchema } from '../audit/schemas.ts'
import { meterUsage } from './meter.ts'
import { modelPriceSchema, PriceTable } from './pricing.ts'
import { usageSummaryOf } from './record.ts'
import { imageVariant, type UnitUsage } from './units.ts'

const target = (selector: string): ResolvedTarget => {
  const [providerName, ...model] = selector.split('/')
  return { providerName: providerName!, providerType: 'openai', model: model.join('/'), selector }
}

const noTokens: Omit<TokenUsage, 'estimated'> = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, cached_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 }

const outcome = (usage: TokenUsage): Outcome => ({ status: 200, clientAborted: false, usage, bytesOut: 10, responseHeaders: new Headers(), durationNs: 1 })

/** The record the meter makes for one request to `selector` that did `work` (and `tokens`). */
function metered(selector: string, work: UnitUsage, tokens: Partial<TokenUsage> = {}, prices = new PriceTable({})) {
  const ctx = makeContext({ body: { model: selector } })
  ctx.target = target(selector)
  return meterUsage(ctx, outcome({ ...noTokens, ...tokens, ...work, estimated: false }), prices)!
}

describe('a usage record with work priced per unit', () => {
  const prices = new PriceTable({
    'acme/image-model': { input: 5, output: 40, per_unit: { unit: 'image', usd: 0.05, variants: { '1024x1024/high': 0.17 } } },
    'acme/token-image-model': { input: 5, output: 40 },
    'acme/rerank': { input: 0, output: 0, per_unit: { unit: 'search_unit', usd: 0.002 } },
    'acme/transcriber': { input: 0, output: 0, per_unit: { unit: 'audio_second', usd: 0.0001 } },
    'acme/speaker': { input: 0, output: 0, per_unit: { unit: 'character', usd: 0.000015 } },
  })

  test('images by size and quality (the bundled dall-e-3): two 1024x1024 HD images', () => {
    const record = metered('openai/dall-e-3', { unit: 'image', units: 2, unit_variant: imageVariant('1024x1024', 'hd') })
    expect(record).toMatchObject({ unit: 'image', units: 2, unit_variant: '1024x1024/hd', priced: true })
    expect(record.cost_usd).toBeCloseTo(0.16, 12)
    expect(metered('openai/dall-e-3', { unit: 'image', units: 1, unit_variant: '1792x1024/standard' }).cost_usd).toBeCloseTo(0.08, 12)
  })

  test('audio seconds in ($0.006 a minute) and characters to speak ($15 a million)', () => {
    expect(metered('acme/transcriber', { unit: 'audio_second', units: 90, unit_variant: '' }, {}, prices)).toMatchObject({ unit: 'audio_second', units: 90 })
    expect(metered('acme/transcriber', { unit: 'audio_second', units: 90, unit_variant: '' }, {}, prices).cost_usd).toBeCloseTo(0.009, 12)
    expect(metered('acme/speaker', { unit: 'character', units: 1000, unit_variant: '' }, {}, prices).cost_usd).toBeCloseTo(0.015, 12)
  })

  test('a listed variant at its price, any other at the unit price; tokens on top', () => {
    expect(metered('acme/image-model', { unit: 'image', units: 1, unit_variant: '1024x1024/high' }, {}, prices).cost_usd).toBeCloseTo(0.17, 12)
    expect(metered('acme/image-model', { unit: 'image', units: 3, unit_variant: '512x512/low' }, {}, prices).cost_usd).toBeCloseTo(0.15, 12)
    const both = metered('acme/image-model', { unit: 'image', units: 1, unit_variant: '512x512/low' }, { prompt_tokens: 1000, completion_tokens: 1000, total_tokens: 2000 }, prices)
    expect(both.cost_usd).toBeCloseTo(0.05 + (1000 * 5 + 1000 * 40) / 1e6, 12)
  })

  test('a token-priced model that reports its images as units too is priced by its tokens', () => {
    const record = metered(
      'acme/token-image-model',
      { unit: 'image', units: 1, unit_variant: '1024x1024/high' },
      { prompt_tokens: 20, completion_tokens: 4160, total_tokens: 4180 },
      prices,
    )
    expect(record).toMatchObject({ priced: true, unit: 'image', units: 1 })
    expect(record.cost_usd).toBeCloseTo((20 * 5 + 4160 * 40) / 1e6, 12)
  })

  test('per-call work: a rerank search unit', () => {
    expect(metered('acme/rerank', { unit: 'search_unit', units: 2, unit_variant: '' }, {}, prices).cost_usd).toBeCloseTo(0.004, 12)
  })

  test('budgets price the same work (the cost model)', () => {
    expect(
      prices.costUsd(target('acme/image-model'), { prompt: 0, cachedPrompt: 0, cacheWrite: 0, completion: 0, unitUsage: { unit: 'image', units: 2, unit_variant: '' } }),
    ).toBeCloseTo(0.1, 12)
  })

  test('a unit price needs its price; the unit is one the gateway knows', () => {
    expect(modelPriceSchema.safeParse({ input: 0, output: 0, per_unit: { unit: 'image' } }).success).toBe(false)
    expect(modelPriceSchema.safeParse({ input: 0, output: 0, per_unit: { unit: 'video_second', usd: 1 } }).success).toBe(false)
    expect(modelPriceSchema.safeParse({ input: 0, output: 0, per_unit: { unit: 'image', usd: 0.04, variants: { '1024x1024/hd': 0.08 } } }).success).toBe(true)
  })
})

describe('the audit entry’s usage summary', () => {
  test('carries the unit, how many and the variant; a token-only summary has the service description’s fields alone', () => {
    const prices = new PriceTable({ 'acme/transcriber': { input: 0, output: 0, per_unit: { unit: 'audio_second', usd: 0.0001 } } })
    const summary = usageSummaryOf(metered('acme/transcriber', { unit: 'audio_second', units: 12.5, unit_variant: '' }, {}, prices))
    expect(summary).toMatchObject({ unit: 'audio_second', units: 12.5, unit_variant: '', input_tokens: 0, entries: 1 })
    expect(summary.cost_usd).toBeCloseTo(0.00125, 12)
    expect(requestUsageSummarySchema.parse(summary)).toEqual(summary)

    const ctx = makeContext({ body: { model: 'openai/gpt-4o' } })
    ctx.target = target('openai/gpt-4o')
    const chat = usageSummaryOf(meterUsage(ctx, outcome({ ...noTokens, prompt_tokens: 10, total_tokens: 10, estimated: false }), new PriceTable({}))!)
    expect(Object.keys(chat)).not.toContain('unit')
    expect(Object.keys(chat)).not.toContain('units')
  })
})

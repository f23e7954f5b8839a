import { beforeAll, describe, expect, test } from 'bun:test'
import type { Outcome } from '../../src/pipeline/types.ts'
import { PriceTable } from '../../src/usage/pricing.ts'
import { estimateUsage, meterUsage, needsEstimatedUsage } from '../../src/usage/meter.ts'
import { summaryFromTokens } from '../../src/usage/record.ts'
import { applyCapture, makeContext, makeDeps, pluginHooks } from '../../test/helpers/plugin-harness.ts'
import { usageMeter } from './plugin.ts'
import { UsageChunkFilter } from './usage-chunk.ts'
import { loadCountThread } from '../../src/tokens/count-thread.ts'

// The tokenizer thread loads its tables once (seconds on a loaded machine); counts below then answer at once.
beforeAll(() => loadCountThread(), 30_000)

const usage = (u: Partial<Outcome['usage']> & object) => ({
  prompt_tokens: 0,
  completion_tokens: 0,
  total_tokens: 0,
  cached_tokens: 0,
  cache_write_tokens: 0,
  reasoning_tokens: 0,
  estimated: false,
  ...u,
})
const outcome = (u?: ReturnType<typeof usage>, responseBody?: unknown) =>
  ({ status: 200, clientAborted: false, bytesOut: 100, responseHeaders: new Headers(), durationNs: 0, usage: u, responseBody }) as Outcome
const target = (selector: string) => {
  const [providerName, model] = [selector.slice(0, selector.indexOf('/')), selector.slice(selector.indexOf('/') + 1)]
  return { providerName, providerType: providerName as 'openai', model, selector }
}

describe('prices', () => {
  const table = new PriceTable({ 'myco/special': { input: 1, output: 2 } })
  test('exact, provider-qualified and longest-prefix lookups; overrides win', async () => {
    expect(table.priceFor(target('openai/gpt-4o-mini-2024-07-18'))?.input).toBe(0.15)
    expect(table.priceFor(target('openai/gpt-4o'))?.input).toBe(2.5)
    expect(table.priceFor(target('myco/special'))?.output).toBe(2)
    expect(table.priceFor(target('openai/unknown-model'))).toBeUndefined()
  })

  test('OpenAI shape: cached tokens are part of the prompt, at the cached price', async () => {
    const c = table.cost(target('openai/gpt-4o'), { prompt: 1_000_000, cachedPrompt: 400_000, cacheWrite: 0, completion: 100_000 })
    expect(c.costUsd).toBeCloseTo(0.6 * 2.5 + 0.4 * 1.25 + 0.1 * 10, 9)
  })

  test('Anthropic shape: cache reads and writes priced apart', async () => {
    const c = table.cost(target('anthropic/claude-sonnet-4-5'), { prompt: 1_000_000, cachedPrompt: 500_000, cacheWrite: 200_000, completion: 0 })
    expect(c.costUsd).toBeCloseTo(0.3 * 3 + 0.5 * 0.3 + 0.2 * 3.75, 9)
  })

  test('Gemini shape: reasoning (thoughts) are output tokens', async () => {
    const c = table.cost(target('gemini/gemini-2.5-flash'), { prompt: 1_000_000, cachedPrompt: 0, cacheWrite: 0, completion: 1_000_000 })
    expect(c.costUsd).toBeCloseTo(0.3 + 2.5, 9)
    expect(table.cost(target('x/nothing'), { prompt: 10, cachedPrompt: 0, cacheWrite: 0, completion: 10 })).toEqual({ costUsd: 0, priced: false })
  })
})

describe('usage meter', () => {
  test('asks streaming upstreams for usage and remembers to hide it', async () => {
    const hooks = pluginHooks(usageMeter, {}, await makeDeps())
    const ctx = makeContext({ body: { model: 'openai/gpt-4o', messages: [], stream: true } })
    hooks.before!(ctx)
    expect(ctx.body.stream_options).toEqual({ include_usage: true })
    expect(ctx.originalBody).not.toHaveProperty('stream_options')
  })

  test('hands the priced usage record the pipeline made to the writer; nothing without one', async () => {
    const deps = await makeDeps()
    const written: unknown[] = []
    deps.usage.record = (r) => void written.push(r)
    const hooks = pluginHooks(usageMeter, {}, deps)
    const ctx = makeContext({ body: { model: 'openai/gpt-4o', messages: [] } })
    ctx.target = target('openai/gpt-4o')
    const done = outcome(usage({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 }))
    done.usageRecord = meterUsage(ctx, done, deps.usage.prices)
    hooks.onComplete!(ctx, done)
    hooks.onComplete!(ctx, outcome())
    expect(written).toEqual([done.usageRecord])
  })

  test('asks for priced usage on the metered endpoints only', async () => {
    const deps = await makeDeps()
    const ctx = makeContext({ body: { model: 'openai/gpt-4o', messages: [] } })
    applyCapture(ctx, [usageMeter], deps)
    expect(ctx.capture).toMatchObject({ usage: true, pricedUsage: true, responseBody: false })
    const list = makeContext({ endpoint: 'models.list', method: 'GET', path: '/v1/models' })
    applyCapture(list, [usageMeter], deps)
    expect(list.capture.pricedUsage).toBe(false)
  })
})

describe('priced usage (src/usage/meter.ts)', () => {
  const prices = new PriceTable({})
  test('upstream usage with its cost; cache hits cost nothing but report the saving', () => {
    const ctx = makeContext({ body: { model: 'openai/gpt-4o', messages: [] } })
    ctx.target = target('openai/gpt-4o')
    const record = meterUsage(ctx, outcome(usage({ prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500, cached_tokens: 200 })), prices)
    expect(record).toMatchObject({ prompt_tokens: 1000, cached_tokens: 200, priced: true, estimated: false, cache_hit: false })
    expect(record!.cost_usd).toBeCloseTo((800 * 2.5 + 200 * 1.25 + 500 * 10) / 1e6, 12)

    const hit = makeContext({ body: { model: 'openai/gpt-4o', messages: [] } })
    hit.target = target('openai/gpt-4o')
    hit.cacheType = 'exact'
    const hitRecord = meterUsage(hit, outcome(usage({ prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 })), prices)
    expect(hitRecord).toMatchObject({ cost_usd: 0, cache_hit: true })
    expect(hitRecord!.saved_usd).toBeGreaterThan(0)
  })

  test('without upstream usage the tokens are counted and marked estimated', async () => {
    const ctx = makeContext({ body: { model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'Count these words please' }] } })
    ctx.target = target('openai/gpt-4o')
    const done = outcome(undefined, { choices: [{ message: { content: 'One two three four' } }] })
    expect(needsEstimatedUsage(ctx, done)).toBe(true)
    const record = meterUsage(ctx, done, prices, await estimateUsage(ctx, done))
    expect(record).toMatchObject({ estimated: true, completion_tokens: 4 })
    expect(record!.prompt_tokens).toBeGreaterThan(4)
  })

  test('rewrite savings are priced at the input price', () => {
    const ctx = makeContext({ body: { model: 'openai/gpt-4o', messages: [] } })
    ctx.target = target('openai/gpt-4o')
    ctx.revisions.push({ seq: 1, rewriter: 'context-slimmer', bytes_before: 10, bytes_after: 5, tokens_saved: 1_000_000 })
    const record = meterUsage(ctx, outcome(usage({ prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 })), prices)
    expect(record).toMatchObject({ rewrite_tokens_saved: 1_000_000, rewrite_cost_saved: 2.5 })
    expect(summaryFromTokens(record!, 1_000_000, 2.5)).toMatchObject({ rewrite_cost_saved: 2.5, entries: 1 })
  })

  test('failed, unrouted and aborted-without-usage requests are not metered', () => {
    const ctx = makeContext({ body: { model: 'openai/gpt-4o', messages: [] } })
    expect(meterUsage(ctx, outcome(usage({ prompt_tokens: 1 })), prices)).toBeUndefined()
    ctx.target = target('openai/gpt-4o')
    expect(meterUsage(ctx, { ...outcome(usage({ prompt_tokens: 1 })), status: 502 }, prices)).toBeUndefined()
    expect(meterUsage(ctx, { ...outcome(), clientAborted: true }, prices)).toBeUndefined()
  })
})

/** What the filter lets through when the body arrives in these reads, chunk by chunk as the pump sends it. */
function filtered(reads: string[]) {
  const usages: unknown[] = []
  const filter = new UsageChunkFilter((u) => usages.push(u))
  const sent: string[] = []
  for (const read of [...reads.map((r) => filter.push(new TextEncoder().encode(r))), filter.end()]) if (read && read.byteLength > 0) sent.push(new TextDecoder().decode(read))
  return { text: sent.join(''), sent, usages }
}

describe('the usage chunk filter', () => {
  const usageEvent = 'data: {"id":"c","choices":[],"usage":{"prompt_tokens":4,"completion_tokens":2,"total_tokens":6}}\n\n'
  const content = 'data: {"choices":[{"delta":{"content":"hi"}}]}\n\n'

  test('the usage-only chunk is removed; everything else passes', () => {
    const sse = 'data: {"choices":[{"delta":{"content":"hi"}}]}\n\ndata: {"choices":[],"usage":{"total_tokens":3}}\n\ndata: [DONE]\n\n'
    expect(filtered([sse]).text).toBe('data: {"choices":[{"delta":{"content":"hi"}}]}\n\ndata: [DONE]\n\n')
  })

  test('hands the hidden usage to the meter', () => {
    const { text, usages } = filtered([content, usageEvent, 'data: [DONE]\n\n'])
    expect(text).toBe(`${content}data: [DONE]\n\n`)
    expect(usages).toEqual([{ prompt_tokens: 4, completion_tokens: 2, total_tokens: 6 }])
  })

  test('finds the usage chunk split across reads at any byte, and keeps the bytes around it', () => {
    const whole = content + usageEvent + 'data: [DONE]\n\n'
    for (let at = 1; at < whole.length; at += 7) {
      const { text, usages } = filtered([whole.slice(0, at), whole.slice(at)])
      expect(text).toBe(`${content}data: [DONE]\n\n`)
      expect(usages).toHaveLength(1)
    }
  })

  test('an event the body ends in the middle of is sent at the end', () => {
    expect(filtered([content, 'data: {"choices":[{"delta":{}}]}']).text).toBe(`${content}data: {"choices":[{"delta":{}}]}`)
  })

  test('CRLF framing, event lines and comments pass unchanged', () => {
    const crlf = 'event: x\r\ndata: {"choices":[{"delta":{}}]}\r\n\r\n: keep-alive\r\n\r\n'
    const { text, usages } = filtered([crlf, usageEvent.replaceAll('\n', '\r\n')])
    expect(text).toBe(crlf)
    expect(usages).toHaveLength(1)
  })

  test('an event longer than any usage chunk is forwarded before it ends', () => {
    const big = `data: {"choices":[{"delta":{"content":"${'x'.repeat(40_000)}"}}]}`
    const { sent, usages } = filtered([big.slice(0, 20_000), `${big.slice(20_000)}\n\n${usageEvent}`])
    expect(sent[0]!.length).toBe(20_000)
    expect(sent.slice(1).join('')).toBe(`${big.slice(20_000)}\n\n`)
    expect(usages).toHaveLength(1)
  })

  test('a chunk without the marker is forwarded as the same bytes', () => {
    const bytes = new TextEncoder().encode(content)
    expect(new UsageChunkFilter().push(bytes)).toBe(bytes)
  })
})

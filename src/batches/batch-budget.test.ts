import { afterAll, expect, test } from 'bun:test'
import type { CostModel } from '../limits/cost.ts'
import type { PluginDeps } from '../pipeline/types.ts'
import { makeDeps } from '../../test/helpers/plugin-harness.ts'
import { BatchBudget } from './batch-budget.ts'

/** 1 USD per 1,000 tokens at the list price; the batch price is half of it. */
const costModel: CostModel = {
  costUsd: (_t, x) => (x.prompt + x.completion) / 1000,
  batchCostUsd: (_t, x) => (x.prompt + x.completion) / 2000,
}

let deps: PluginDeps | undefined
afterAll(() => deps?.stores.close())

const chat = (model: string) => ({ model, max_tokens: 200, messages: [{ role: 'user', content: 'classify this ticket, please' }] })

test('a line a provider batch API will take is estimated and reserved at the batch price; one the gateway runs at the list price', async () => {
  deps = await makeDeps({ OPENAI_API_KEY: 'sk-test', DEEPSEEK_API_KEY: 'sk-test' })
  await deps.limits.load({ budgets: [{ scope: { key_id: 'key_a' }, window: 'day', limit_usd: 10 }], rate_limits: [] })
  // The executor hands OpenAI's chat lines to its batch API; DeepSeek has none.
  const handsOver = (providerName: string, endpointId: string) => providerName === 'openai' && endpointId === 'chat.completions'
  const budget = new BatchBudget({ limits: deps.limits, counters: deps.stores.counters, catalog: deps.catalog, costModel, handsOver })
  const allRunByGateway = new BatchBudget({ limits: deps.limits, counters: deps.stores.counters, catalog: deps.catalog, costModel, handsOver: () => false })

  const listPrice = await allRunByGateway.estimate('chat.completions', chat('openai/gpt-4o'))
  expect(listPrice).toBeGreaterThan(200_000) // at least its 200 output tokens at 1 USD per 1,000
  const handedOver = await budget.estimate('chat.completions', chat('openai/gpt-4o'))
  const runHere = await budget.estimate('chat.completions', chat('deepseek/deepseek-chat'))
  expect(handedOver).toBe(Math.round(listPrice / 2))
  expect(runHere).toBe(listPrice)
  // The embeddings row is not handed over: list price.
  expect(await budget.estimate('embeddings', { model: 'openai/text-embedding-3-small', input: 'x' })).toBe(
    await allRunByGateway.estimate('embeddings', { model: 'openai/text-embedding-3-small', input: 'x' }),
  )

  const hold = await budget.reserve('key_a', undefined, handedOver + runHere)
  expect(Array.isArray(hold)).toBe(true)
  const [held] = hold as { key: string }[]
  expect(await deps.stores.counters.get(held!.key)).toBe(handedOver + runHere)
})

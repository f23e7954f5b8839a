/**
 * Budgets and rate limits end to end through the admin API and the OpenAI SDK.
 */
import { expect, test } from 'bun:test'
import OpenAI from 'openai'
import type { CostModel } from '../../src/limits/cost.ts'
import { useGatewaySuite } from '../helpers/gateway-suite.ts'

const admin = (path: string, init: RequestInit = {}) =>
  fetch(`${t.gw.url}/admin${path}`, { ...init, headers: { authorization: `Bearer ${t.master}`, 'content-type': 'application/json' } })
/** 1 USD per 1,000 tokens, whatever the kind. */
const costModel: CostModel = { costUsd: (_t, x) => (x.prompt + x.completion) / 1000 }

const t = useGatewaySuite({ yaml: () => `workflows:\n  - name: default\n    features: { budget: true, usage: true }\n`, gatewayOptions: { costModel } })

async function newKey(name: string): Promise<{ id: string; key: string }> {
  return (await (await admin('/keys', { method: 'POST', body: JSON.stringify({ name }) })).json()) as { id: string; key: string }
}

test('a rate limit answers 429 with Retry-After and x-ratelimit headers the SDK understands', async () => {
  const key = await newKey('limited')
  const created = await admin('/rate-limits', { method: 'POST', body: JSON.stringify({ scope: { key_id: key.id }, requests_per_minute: 2 }) })
  expect(created.status).toBe(201)
  const client = new OpenAI({ apiKey: key.key, baseURL: t.gw.baseURL, maxRetries: 0 })
  const ok = await client.chat.completions.create({ model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'x' }] }).withResponse()
  expect(ok.response.headers.get('x-ratelimit-limit-requests')).toBe('2')
  expect(ok.response.headers.get('x-ratelimit-remaining-requests')).toBe('1')
  await client.chat.completions.create({ model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'x' }] })
  const err = await client.chat.completions.create({ model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'x' }] }).catch((e) => e)
  expect(err).toBeInstanceOf(OpenAI.RateLimitError)
  expect(Number(err.headers.get('retry-after'))).toBeGreaterThan(0)
  expect(err.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded', provider: '' })
})

test("probing stored-response ids costs the rate limit like any call: an unknown id's 404 comes after the limit", async () => {
  const key = await newKey('prober')
  const created = await admin('/rate-limits', { method: 'POST', body: JSON.stringify({ scope: { key_id: key.id }, requests_per_minute: 2 }) })
  expect(created.status).toBe(201)
  const client = new OpenAI({ apiKey: key.key, baseURL: t.gw.baseURL, maxRetries: 0 })
  const probes = [
    () => client.responses.retrieve('resp_never_made_1'),
    () => client.responses.inputItems.list('resp_never_made_2'),
    () => client.responses.cancel('resp_never_made_3'),
    () => client.responses.delete('resp_never_made_4'),
  ]
  const statuses: number[] = []
  for (const probe of probes) statuses.push(((await probe().catch((e) => e)) as InstanceType<typeof OpenAI.APIError>).status ?? 0)
  expect(statuses).toEqual([404, 404, 429, 429])
})

test('a budget is spent by real usage, shown by GET /admin/budgets, and refuses once exhausted', async () => {
  const key = await newKey('budgeted')
  // Each mock answer uses 17 tokens = 0.017 USD; a request reserves its prompt plus max_tokens 5.
  const res = await admin('/budgets', { method: 'POST', body: JSON.stringify({ scope: { key_id: key.id }, window: 'day', limit_usd: 0.04 }) })
  expect(res.status).toBe(201)
  const client = new OpenAI({ apiKey: key.key, baseURL: t.gw.baseURL, maxRetries: 0 })
  const ask = () => client.chat.completions.create({ model: 'openai/gpt-4o', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] })
  await ask()
  await ask()
  await Bun.sleep(20)
  const err = await ask().catch((e) => e)
  expect(err).toBeInstanceOf(OpenAI.RateLimitError)
  expect(err.error.code).toBe('budget_exceeded')
  const list = (await (await admin('/budgets')).json()) as { data: { scope: { key_id?: string }; spent_usd: number; limit_usd: number; resets_at: string }[] }
  const mine = list.data.find((b) => b.scope.key_id === key.id)!
  expect(mine.spent_usd).toBeCloseTo(0.034, 6)
  expect(Date.parse(mine.resets_at)).toBeGreaterThan(Date.now())
})

test('invalid definitions are 400s naming the field; unknown ids 404', async () => {
  const bad = await admin('/budgets', { method: 'POST', body: JSON.stringify({ scope: { key_id: 'k' }, window: 'fortnight', limit_usd: 1 }) })
  expect(bad.status).toBe(400)
  expect(((await bad.json()) as { error: { param: string } }).error.param).toBe('window')
  expect((await admin('/rate-limits/rl_nope', { method: 'DELETE' })).status).toBe(404)
})

/**
 * Usage and cost end to end: records from real requests, sums and breakdowns through the admin API, price
 * overrides from YAML and the admin API, the usage chunk hidden from clients that did not ask for it, and the
 * feature switched off by a workflow.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import OpenAI from 'openai'
import { startGateway, writeGatewayYaml, type RunningGateway } from '../helpers/gateway.ts'
import { startMockOpenAI, type MockUpstream } from '../helpers/mock-openai-upstream.ts'

const MASTER = 'master-key-for-tests-0123456789abcdef'
let mock: MockUpstream
let gw: RunningGateway
let client: OpenAI
const admin = (path: string, init: RequestInit = {}) =>
  fetch(`${gw.url}/admin${path}`, { ...init, headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json' } })

beforeAll(async () => {
  mock = startMockOpenAI()
  const yaml = writeGatewayYaml(`
pricing:
  openai/gpt-4o: { input: 1000, output: 2000 }
workflows:
  - name: no-usage
    scope: { model: openai/gpt-4o-mini }
    features: { usage: false }
`)
  gw = await startGateway({ GATEWAY_CONFIG: yaml, GATEWAY_MASTER_KEY: MASTER, OPENAI_API_KEY: 'k', OPENAI_BASE_URL: mock.url })
  client = new OpenAI({ apiKey: MASTER, baseURL: gw.baseURL, maxRetries: 0, defaultHeaders: { 'x-gateway-user-path': '/team-a' } })
})
afterAll(async () => {
  await gw.stop()
  mock.stop()
})

test('streams ask the upstream for usage; a client that did not ask never sees the usage chunk', async () => {
  const summary = async () => (await (await admin('/usage/summary?days=1')).json()) as { requests: number; estimated_requests: number }
  const before = await summary()
  const raw = await fetch(`${gw.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'openai/gpt-4o', stream: true, messages: [{ role: 'user', content: 'echo:abc' }] }),
  }).then((r) => r.text())
  expect(mock.requests.at(-1)!.body.stream_options).toEqual({ include_usage: true })
  expect(raw).not.toContain('"usage"')
  expect(raw).toEndWith('data: [DONE]\n\n')
  // The hidden chunk's usage is still the one recorded: not a tokenizer estimate.
  let after = await summary()
  for (let i = 0; i < 50 && after.requests === before.requests; i++) after = (await Bun.sleep(100), await summary())
  expect(after.requests - before.requests).toBe(1)
  expect(after.estimated_requests).toBe(before.estimated_requests)
  const asked = client.chat.completions.stream({ model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'echo:abc' }], stream_options: { include_usage: true } })
  expect((await asked.finalChatCompletion()).usage?.completion_tokens).toBe(3)
})

test('records are summed over a range and broken down; YAML prices apply', async () => {
  const before = (await (await admin('/usage/summary?days=1')).json()) as { requests: number; cost_usd: number }
  await client.chat.completions.create({ model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'x' }] })
  const after = (await (await admin('/usage/summary?days=1')).json()) as { requests: number; cost_usd: number; input_tokens: number }
  expect(after.requests - before.requests).toBe(1)
  // mock usage: 12 prompt (2 cached), 5 completion, at 1000/2000 USD per million tokens
  expect(after.cost_usd - before.cost_usd).toBeCloseTo((12 * 1000 + 5 * 2000) / 1e6, 9)
  const byPath = (await (await admin('/usage/breakdown?by=user_path')).json()) as { data: { user_path: string; requests: number }[] }
  expect(byPath.data.find((r) => r.user_path === '/team-a')?.requests).toBeGreaterThanOrEqual(1)
  const byModel = (await (await admin('/usage/breakdown?by=model&interval=day')).json()) as { data: { model: string; day: string }[] }
  expect(byModel.data.some((r) => r.model === 'gpt-4o' && /^\d{4}-\d{2}-\d{2}$/.test(r.day))).toBe(true)
})

test('an admin price override applies to the next request and can be dropped', async () => {
  const put = await admin('/pricing/openai/gpt-4o', { method: 'PUT', body: JSON.stringify({ input: 0, output: 1_000_000 }) })
  expect(put.status).toBe(200)
  const before = (await (await admin('/usage/summary?days=1')).json()) as { cost_usd: number }
  await client.chat.completions.create({ model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'x' }] })
  const after = (await (await admin('/usage/summary?days=1')).json()) as { cost_usd: number }
  expect(after.cost_usd - before.cost_usd).toBeCloseTo(5, 6)
  const table = (await (await admin('/pricing')).json()) as { data: { model: string; source: string }[] }
  expect(table.data.find((p) => p.model === 'openai/gpt-4o')?.source).toBe('override')
  expect((await admin('/pricing/openai/gpt-4o', { method: 'DELETE' })).status).toBe(200)
  expect((await admin('/pricing/openai/gpt-4o', { method: 'DELETE' })).status).toBe(404)
  expect((await admin('/pricing/x', { method: 'PUT', body: JSON.stringify({ input: -1, output: 1 }) })).status).toBe(400)
})

test('a price per unit of work is set through the admin API and refused without a price; the reports sum each unit', async () => {
  const price = { input: 0, output: 0, per_unit: { unit: 'image', usd: 0.05, variants: { '1024x1024/hd': 0.08 } } }
  const put = await admin('/pricing/openai/my-image-model', { method: 'PUT', body: JSON.stringify(price) })
  expect([put.status, ((await put.json()) as { price: unknown }).price]).toEqual([200, price])
  const table = (await (await admin('/pricing')).json()) as { data: { model: string; price: unknown }[] }
  expect(table.data.find((p) => p.model === 'openai/my-image-model')?.price).toEqual(price)
  const refused = await admin('/pricing/x', { method: 'PUT', body: JSON.stringify({ input: 0, output: 0, per_unit: { unit: 'image' } }) })
  expect(refused.status).toBe(400)
  expect((await admin('/pricing/openai/my-image-model', { method: 'DELETE' })).status).toBe(200)
  // No request did work in units here: each unit's sum is there, and 0.
  const summary = await (await admin('/usage/summary?days=1')).json()
  expect(summary).toMatchObject({ images: 0, audio_seconds: 0, characters: 0, search_units: 0 })
  const byModel = (await (await admin('/usage/breakdown?by=model')).json()) as { data: Record<string, unknown>[] }
  expect(byModel.data[0]).toMatchObject({ images: 0, audio_seconds: 0 })
})

test('a workflow without usage writes no record', async () => {
  const before = (await (await admin('/usage/summary?days=1')).json()) as { requests: number }
  await client.chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] })
  const after = (await (await admin('/usage/summary?days=1')).json()) as { requests: number }
  expect(after.requests).toBe(before.requests)
})

test('malformed range parameters are 400s naming them', async () => {
  for (const [query, param] of [
    ['days=0', 'days'],
    ['start_date=2026-13-01', 'start_date'],
    ['start_date=2026-05-02&end_date=2026-05-01', 'start_date'],
    ['by=color', 'by'],
  ]) {
    const res = await admin(`/usage/breakdown?${query}`)
    expect(res.status).toBe(400)
    expect(((await res.json()) as { error: { param: string } }).error.param).toBe(param!)
  } // An empty value counts as not given (the default range), as on every /admin route.
  expect((await admin('/usage/breakdown?days=&by=&start_date=')).status).toBe(200)
})

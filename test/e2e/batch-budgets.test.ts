/**
 * A batch's budgets and rate limits end to end: its estimated cost is reserved in the owner's budgets when it is created (a batch
 * that does not fit is refused with the live request's 429 `budget_exceeded`, and no batch is made), and each line
 * settles as it ends: its estimate is given back and its real cost stays, so the budget ends at the lines' cost.
 */
import { describe, expect, test } from 'bun:test'
import OpenAI, { toFile } from 'openai'
import type { CostModel } from '../../src/limits/cost.ts'
import { useGatewaySuite } from '../helpers/gateway-suite.ts'

/** 1 USD per 1,000 tokens, whatever the kind. */
const costModel: CostModel = { costUsd: (_t, x) => (x.prompt + x.completion) / 1000 }
const t = useGatewaySuite({
  yaml: () => `workflows:\n  - name: default\n    features: { budget: true, usage: true }\n`,
  gatewayOptions: { costModel },
  env: { BATCHES_GATEWAY_RUN_ALL: 'true', BATCHES_POLL_SECONDS: '1', LOGGING_AUDIT_FLUSH_INTERVAL_MS: '5' },
})

const admin = (path: string, init: RequestInit = {}) =>
  fetch(`${t.gw.url}/admin${path}`, { ...init, headers: { authorization: `Bearer ${t.master}`, 'content-type': 'application/json' } })

const lines = (n: number) =>
  Array.from({ length: n }, (_, i) =>
    JSON.stringify({
      custom_id: `l${i}`,
      method: 'POST',
      url: '/v1/chat/completions',
      body: { model: 'openai/gpt-4o', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] },
    }),
  ).join('\n')

async function spent(keyId: string): Promise<number> {
  const list = (await (await admin('/budgets')).json()) as { data: { scope: { key_id?: string }; spent_usd: number }[] }
  return list.data.find((b) => b.scope.key_id === keyId)!.spent_usd
}

test("a batch over the budget is refused at creation; one within it ends holding only its lines' real cost", async () => {
  const key = (await (await admin('/keys', { method: 'POST', body: JSON.stringify({ name: 'batch budget' }) })).json()) as { id: string; key: string }
  expect((await admin('/budgets', { method: 'POST', body: JSON.stringify({ scope: { key_id: key.id }, window: 'day', limit_usd: 0.1 }) })).status).toBe(201)
  const client = new OpenAI({ apiKey: key.key, baseURL: t.gw.baseURL, maxRetries: 0 })
  const upload = async (n: number) => client.files.create({ file: await toFile(Buffer.from(lines(n)), 'in.jsonl'), purpose: 'batch' })

  const tooBig = await client.batches.create({ input_file_id: (await upload(30)).id, endpoint: '/v1/chat/completions', completion_window: '24h' }).catch((e) => e)
  expect(tooBig).toBeInstanceOf(OpenAI.RateLimitError)
  expect(tooBig.error.code).toBe('budget_exceeded')
  expect((await client.batches.list()).data).toEqual([])
  expect(await spent(key.id)).toBe(0)

  const created = await client.batches.create({ input_file_id: (await upload(3)).id, endpoint: '/v1/chat/completions', completion_window: '24h' })
  // Held at once: the three lines' estimates (their prompts plus max_tokens 5 each).
  const held = await spent(key.id)
  expect(held).toBeGreaterThan(0)
  for (const deadline = Date.now() + 10_000; (await client.batches.retrieve(created.id)).status !== 'completed'; ) {
    if (Date.now() > deadline) throw new Error('the batch did not complete')
    await Bun.sleep(20)
  }
  // Each mock answer uses 17 tokens = 0.017 USD: the estimates were given back, the real cost stays.
  await Bun.sleep(50)
  expect(await spent(key.id)).toBeCloseTo(3 * 0.017, 6)
})

describe("the key's rate limits", () => {
  test("lines refused by the key's own rate limit wait and run; none fails for it, each refusal audited", async () => {
    const res = await fetch(`${t.gw.url}/admin/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.master}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'one at a time' }),
    })
    const key = (await res.json()) as { id: string; key: string }
    const limit = await fetch(`${t.gw.url}/admin/rate-limits`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.master}`, 'content-type': 'application/json' },
      body: JSON.stringify({ scope: { key_id: key.id }, concurrent: 1 }),
    })
    expect(limit.status).toBe(201)
    // The key's own calls (upload, polling) count under the limit too: the SDK waits its 429s out.
    const client = new OpenAI({ apiKey: key.key, baseURL: t.gw.baseURL, maxRetries: 10 })
    const lines = Array.from({ length: 3 }, (_, i) =>
      JSON.stringify({
        custom_id: `limited-${i}`,
        method: 'POST',
        url: '/v1/chat/completions',
        body: { model: 'openai/slow-first-byte', metadata: { delay_ms: '150' }, messages: [{ role: 'user', content: 'hi' }] },
      }),
    )
    const input = await client.files.create({ file: await toFile(Buffer.from(lines.join('\n')), 'limited.jsonl'), purpose: 'batch' })
    const created = await client.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' })
    let done = await client.batches.retrieve(created.id)
    for (const deadline = Date.now() + 20_000; done.status !== 'completed'; done = await client.batches.retrieve(created.id)) {
      if (Date.now() > deadline) throw new Error(`batch still ${done.status}`)
      await Bun.sleep(50)
    }
    expect(done.request_counts).toEqual({ total: 3, completed: 3, failed: 0 })
    // The batch runs up to 4 lines at once; the key allows 1: the others were refused (429) and tried again.
    const page = await t.audit.eventually(
      () => t.audit.list({ batch_id: created.id }),
      (p) => p.total > 3,
    )
    expect(page.entries.filter((e) => e.status_code === 429).length).toBeGreaterThan(0)
    expect(page.entries.filter((e) => e.status_code === 200).length).toBe(3)
  }, 30_000)
})

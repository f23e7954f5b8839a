/**
 * A batch whose lines target several providers, with the official `openai` SDK: the gateway resolves each line as a
 * live request (selectors, model access, rewriters, guardrails), hands the lines of providers with a batch API to
 * that API in the provider's format (OpenAI's Files + Batches, Anthropic Message Batches, Gemini batch mode, against mocks written
 * from their references), runs the others itself, and merges every answer into one output file and one error file
 * under the caller's custom_ids. Each provider answer goes through the pipeline as a live one: audit entry linked
 * to the batch, usage priced at the provider's batch price.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import OpenAI, { toFile } from 'openai'
import { auditAdmin, type AuditAdmin } from '../helpers/audit-admin.ts'
import { batchEnded, fileLines } from '../helpers/batch-results.ts'
import { type RunningGateway, startGateway, writeGatewayYaml } from '../helpers/gateway.ts'
import { type MockAnthropicBatches, mockAnthropicBatches } from '../helpers/mock-anthropic-batches.ts'
import { type MockOpenAIBatches, mockOpenAIBatches } from '../helpers/mock-openai-batches.ts'
import { type MockGeminiBatches, mockGeminiBatches } from '../helpers/mock-gemini-batches.ts'
import { type MockUpstream, startMockOpenAI } from '../helpers/mock-openai-upstream.ts'
import { estimatedPromptTokens } from '../../src/limits/request-estimate.ts'
import { endpoint } from '../../src/protocols/endpoints.ts'

const MASTER = 'master-key-for-native-batches-0123456789'
let openaiBatches: MockOpenAIBatches
let anthropicBatches: MockAnthropicBatches
let geminiBatches: MockGeminiBatches
let chat: MockUpstream
let gw: RunningGateway
let client: OpenAI
let audit: AuditAdmin

beforeAll(async () => {
  openaiBatches = mockOpenAIBatches({ apiKey: 'sk-openai-batch' })
  anthropicBatches = mockAnthropicBatches({ apiKey: 'sk-ant-batch' })
  geminiBatches = mockGeminiBatches({ apiKey: 'gemini-batch-key' })
  chat = startMockOpenAI()
  const yaml = writeGatewayYaml(`providers:
  oai: { type: openai, api_key: sk-openai-batch, base_url: "${openaiBatches.url}" }
  claude: { type: anthropic, api_key: sk-ant-batch, base_url: "${anthropicBatches.url}" }
  gem: { type: gemini, api_key: gemini-batch-key, base_url: "${geminiBatches.url}" }
  ds: { type: deepseek, api_key: sk-openai-test, base_url: "${chat.url}" }
workflows:
  - name: default
    features: { usage: true, budget: true }
`)
  gw = await startGateway({ GATEWAY_MASTER_KEY: MASTER, GATEWAY_CONFIG: yaml, BATCHES_POLL_SECONDS: '1', LOGGING_AUDIT_FLUSH_INTERVAL_MS: '5' })
  client = new OpenAI({ apiKey: MASTER, baseURL: gw.baseURL, maxRetries: 0 })
  audit = auditAdmin(gw.url, MASTER)
}, 30_000)
afterAll(async () => {
  await gw?.stop()
  openaiBatches?.stop()
  anthropicBatches?.stop()
  geminiBatches?.stop()
  chat?.stop()
})

const line = (customId: string, model: string, content: string) =>
  JSON.stringify({ custom_id: customId, method: 'POST', url: '/v1/chat/completions', body: { model, max_tokens: 50, messages: [{ role: 'user', content }] } })

const read = (fileId: string | null | undefined) => fileLines(client, fileId)

describe('a batch split across provider batch APIs and the gateway', () => {
  test('each provider gets its lines in its own format; the answers come back merged under the caller’s custom_ids', async () => {
    const text = `${[
      line('oai-ok', 'oai/gpt-4o-mini', 'hello openai'),
      line('oai-fail', 'oai/gpt-4o-mini', 'please FAIL'),
      line('claude-ok', 'claude/claude-sonnet-4-5', 'hello claude'),
      line('gemini-ok', 'gem/gemini-2.5-flash', 'hello gemini'),
      line('ds-ok', 'ds/deepseek-chat', 'echo:from the gateway'),
    ].join('\n')}\n`
    const input = await client.files.create({ file: await toFile(Buffer.from(text), 'mixed.jsonl'), purpose: 'batch' })
    const created = await client.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' })
    const done = await batchEnded(client, created.id, {
      timeoutMs: 20_000,
      pollMs: 50,
      tick: () => {
        openaiBatches.finishAll()
        anthropicBatches.finishAll()
        geminiBatches.finishAll()
      },
    })
    expect(done.status).toBe('completed')
    expect(done.request_counts).toEqual({ total: 5, completed: 4, failed: 1 })

    // OpenAI got its two lines as a JSONL file and one batch, the model its own id.
    const uploads = openaiBatches.calls.filter((c) => c.method === 'POST' && c.path.endsWith('/files'))
    expect(uploads.length).toBe(1)
    const uploaded = String(uploads[0]!.body)
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
    expect(uploaded.map((l) => l.body.model)).toEqual(['gpt-4o-mini', 'gpt-4o-mini'])
    expect(openaiBatches.calls.filter((c) => c.method === 'POST' && c.path.endsWith('/batches')).length).toBe(1)
    // Its results stored, the gateway deleted what it made at OpenAI: the input file, the output and error files.
    const [oaiBatch] = [...openaiBatches.batches.values()]
    expect(oaiBatch!.output_file_id).toBeString()
    expect(oaiBatch!.error_file_id).toBeString()
    expect(openaiBatches.deleted.toSorted()).toEqual([oaiBatch!.input_file_id, oaiBatch!.output_file_id!, oaiBatch!.error_file_id!].toSorted())
    expect(openaiBatches.files.size).toBe(0)
    // Anthropic got one Message Batch; DeepSeek (no batch API) was called live by the gateway.
    expect(anthropicBatches.batches.size).toBe(1)
    // Its results stored, the gateway deleted the Message Batch at Anthropic too.
    expect([...anthropicBatches.deleted]).toEqual([...anthropicBatches.batches.keys()])
    expect(geminiBatches.batches.size).toBe(1)
    expect(chat.requests.filter((r) => r.path.endsWith('/chat/completions')).length).toBe(1)

    const output = await read(done.output_file_id)
    expect(output.map((l) => l.custom_id).sort()).toEqual(['claude-ok', 'ds-ok', 'gemini-ok', 'oai-ok'])
    expect(output.find((l) => l.custom_id === 'gemini-ok').response.body.object).toBe('chat.completion')
    const claude = output.find((l) => l.custom_id === 'claude-ok')
    expect(claude.response.status_code).toBe(200)
    expect(claude.response.body.object).toBe('chat.completion')
    expect(output.find((l) => l.custom_id === 'ds-ok').response.body.choices[0].message.content).toBe('from the gateway')
    const errors = await read(done.error_file_id)
    expect(errors.map((l) => l.custom_id)).toEqual(['oai-fail'])
    expect(errors[0].response.status_code).toBe(400)

    // One audit entry per answered line, linked to the batch; the provider's answers priced at the batch price.
    const page = await audit.eventually(
      () => audit.list({ batch_id: created.id }),
      (p) => p.total === 5,
    )
    const paths = new Set(page.entries.map((e) => e.path))
    expect(paths).toEqual(new Set(['/v1/chat/completions']))
    const oai = page.entries.find((e) => e.provider_name === 'oai' && e.status_code === 200)!
    const detail = await audit.detail(oai.id)
    expect(detail.data.batch).toEqual({ id: created.id, custom_id: 'oai-ok' })
    const price = gw.gateway.usage.prices.priceFor({ selector: 'oai/gpt-4o-mini', model: 'gpt-4o-mini' })!
    const u = detail.usage!
    const listCost =
      ((u.input_tokens - u.cached_input_tokens) * price.input + u.cached_input_tokens * (price.cached_input ?? price.input) + u.output_tokens * price.output) / 1_000_000
    expect(price.batch_multiplier).toBe(0.5)
    expect(detail.usage?.cost_usd).toBeCloseTo(listCost * 0.5, 12)
  }, 40_000)
})

describe('a batch waiting on a provider job', () => {
  const oaiLines = (prefix: string, n: number) => `${Array.from({ length: n }, (_, i) => line(`${prefix}-${i}`, 'oai/gpt-4o-mini', `hello ${i}`)).join('\n')}\n`
  const statusCalls = () => openaiBatches.calls.filter((c) => c.method === 'GET' && /\/batches\/[^/]+$/.test(c.path)).length

  test('is asked about once a round (batches.poll_seconds), not in a busy loop; cancelled, the provider job is cancelled too', async () => {
    const input = await client.files.create({ file: await toFile(Buffer.from(oaiLines('wait', 3)), 'wait.jsonl'), purpose: 'batch' })
    const created = await client.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' })
    await audit.eventually(
      () => Promise.resolve([...openaiBatches.batches.values()].filter((b) => b.input_file_id && b.status !== 'completed').length),
      (n) => n === 1,
      10_000,
    )
    const before = statusCalls()
    await Bun.sleep(2_500)
    // Poll every second: two or three looks in 2.5 s, never hundreds.
    expect(statusCalls() - before).toBeLessThanOrEqual(4)
    expect((await client.batches.retrieve(created.id)).status).toBe('in_progress')

    expect((await client.batches.cancel(created.id)).status).toBe('cancelling')
    let done = await client.batches.retrieve(created.id)
    for (const deadline = Date.now() + 15_000; done.status !== 'cancelled'; done = await client.batches.retrieve(created.id)) {
      if (Date.now() > deadline) throw new Error(`batch still ${done.status}`)
      openaiBatches.advance()
      await Bun.sleep(50)
    }
    expect(openaiBatches.calls.some((c) => c.method === 'POST' && c.path.endsWith('/cancel'))).toBe(true)
    const errors = await read(done.error_file_id)
    expect(errors.map((l) => l.custom_id).sort()).toEqual(['wait-0', 'wait-1', 'wait-2'])
    expect(new Set(errors.map((l) => l.error.code))).toEqual(new Set(['batch_cancelled']))
    expect(done.request_counts).toEqual({ total: 3, completed: 0, failed: 3 })
  }, 40_000)
})

describe("a batch's budget hold", () => {
  test('a line handed to a provider batch API holds its estimate at the batch price, not the list price', async () => {
    const admin = (path: string, body: unknown) =>
      fetch(`${gw.url}/admin${path}`, { method: 'POST', headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })
    const key = (await (await admin('/keys', { name: 'batch price hold' })).json()) as { id: string; key: string }
    expect((await admin('/budgets', { scope: { key_id: key.id }, window: 'day', limit_usd: 1 })).status).toBe(201)
    const keyClient = new OpenAI({ apiKey: key.key, baseURL: gw.baseURL, maxRetries: 0 })
    const text = `${line('held', 'oai/gpt-4o-mini', 'classify this ticket')}\n`
    const input = await keyClient.files.create({ file: await toFile(Buffer.from(text), 'held.jsonl'), purpose: 'batch' })
    const created = await keyClient.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' })

    // The provider job has not run (the mock moves only when told): the budget holds the line's estimate alone.
    const budgets = (await (await fetch(`${gw.url}/admin/budgets`, { headers: { authorization: `Bearer ${MASTER}` } })).json()) as {
      data: { scope: { key_id?: string }; spent_usd: number }[]
    }
    const held = budgets.data.find((b) => b.scope.key_id === key.id)!.spent_usd
    const price = gw.gateway.usage.prices.priceFor({ selector: 'oai/gpt-4o-mini', model: 'gpt-4o-mini' })!
    const prompt = await estimatedPromptTokens(endpoint('chat.completions').api, JSON.parse(text).body)
    const listUsd = (prompt * price.input + 50 * price.output) / 1_000_000
    expect(price.batch_multiplier).toBe(0.5)
    expect(held).toBeGreaterThan(0)
    expect(held).toBeCloseTo(listUsd * 0.5, 5)
    expect(held).toBeLessThan(listUsd * 0.75)
    await keyClient.batches.cancel(created.id)
  })
})

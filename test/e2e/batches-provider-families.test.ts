/**
 * The provider batch APIs not covered by batches-native.test.ts, end to end with the official `openai` SDK: a chat
 * batch whose lines go to Gemini batch mode (one batch per model) and to an Azure OpenAI classic resource (its
 * api-version and deployment URLs), and a Responses batch whose lines go over chat to Anthropic Message Batches and
 * Gemini batch mode and come back as Response documents. Mocks written from each provider's reference.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import OpenAI, { toFile } from 'openai'
import { batchEnded, fileLines } from '../helpers/batch-results.ts'
import { type RunningGateway, startGateway, writeGatewayYaml } from '../helpers/gateway.ts'
import { type MockAnthropicBatches, mockAnthropicBatches } from '../helpers/mock-anthropic-batches.ts'
import { type MockGeminiBatches, mockGeminiBatches } from '../helpers/mock-gemini-batches.ts'
import { type MockOpenAIBatches, mockOpenAIBatches } from '../helpers/mock-openai-batches.ts'

const MASTER = 'master-key-for-provider-families-0123456789'
let gemini: MockGeminiBatches
let azure: MockOpenAIBatches
let anthropic: MockAnthropicBatches
let gw: RunningGateway
let client: OpenAI

beforeAll(async () => {
  gemini = mockGeminiBatches({ apiKey: 'AIza-batch-key' })
  azure = mockOpenAIBatches({ apiKey: 'azure-batch-key', keyHeader: 'api-key', prefix: '/openai', apiVersion: '2024-10-21', endpoints: ['/chat/completions'] })
  anthropic = mockAnthropicBatches({ apiKey: 'sk-ant-batch' })
  const yaml = writeGatewayYaml(`providers:
  google: { type: gemini, api_key: AIza-batch-key, base_url: "${gemini.url}" }
  az: { type: azure, api_key: azure-batch-key, base_url: "${azure.url}", models: [my-batch-deployment] }
  claude: { type: anthropic, api_key: sk-ant-batch, base_url: "${anthropic.url}" }
workflows:
  - name: default
    features: { usage: true }
`)
  gw = await startGateway({ GATEWAY_MASTER_KEY: MASTER, GATEWAY_CONFIG: yaml, BATCHES_POLL_SECONDS: '1', LOGGING_AUDIT_FLUSH_INTERVAL_MS: '5' })
  client = new OpenAI({ apiKey: MASTER, baseURL: gw.baseURL, maxRetries: 0 })
}, 30_000)
afterAll(async () => {
  await gw?.stop()
  gemini?.stop()
  azure?.stop()
  anthropic?.stop()
})

const read = (fileId: string | null | undefined) => fileLines(client, fileId)

const finished = (id: string) =>
  batchEnded(client, id, {
    timeoutMs: 20_000,
    pollMs: 50,
    tick: () => {
      gemini.finishAll()
      azure.finishAll()
      anthropic.finishAll()
    },
  })

async function submit(lines: object[], endpoint: '/v1/chat/completions' | '/v1/responses') {
  const text = `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`
  const input = await client.files.create({ file: await toFile(Buffer.from(text), 'lines.jsonl'), purpose: 'batch' })
  return client.batches.create({ input_file_id: input.id, endpoint, completion_window: '24h' })
}

describe('provider batch APIs through the gateway', () => {
  test('chat lines: Gemini batch mode, one batch per model; Azure OpenAI with its api-version and deployment', async () => {
    const chat = (custom_id: string, model: string, content: string) => ({
      custom_id,
      method: 'POST',
      url: '/v1/chat/completions',
      body: { model, max_tokens: 40, messages: [{ role: 'user', content }] },
    })
    const created = await submit(
      [
        chat('flash-1', 'google/gemini-2.5-flash', 'hello'),
        chat('pro-1', 'google/gemini-2.5-pro', 'bonjour'),
        chat('flash-fail', 'google/gemini-2.5-flash', 'please FAIL'),
        chat('azure-1', 'az/my-batch-deployment', 'hallo'),
      ],
      '/v1/chat/completions',
    )
    const done = await finished(created.id)
    expect(done.status).toBe('completed')
    expect(done.request_counts).toEqual({ total: 4, completed: 3, failed: 1 })

    expect([...gemini.batches.values()].map((b) => [b.model, b.requests.map((r) => r.metadata?.key)])).toEqual([
      ['gemini-2.5-flash', ['flash-1', 'flash-fail']],
      ['gemini-2.5-pro', ['pro-1']],
    ])
    const upload = azure.calls.find((c) => c.method === 'POST' && c.path === '/openai/files')!
    expect(JSON.parse(String(upload.body).trim())).toMatchObject({ custom_id: 'azure-1', url: '/chat/completions', body: { model: 'my-batch-deployment' } })
    expect(azure.calls.every((c) => c.search.includes('api-version=2024-10-21') && c.headers['api-key'] === 'azure-batch-key')).toBe(true)

    const output = await read(done.output_file_id)
    expect(output.map((l) => l.custom_id).sort()).toEqual(['azure-1', 'flash-1', 'pro-1'])
    const flash = output.find((l) => l.custom_id === 'flash-1')
    expect(flash.response.status_code).toBe(200)
    expect(flash.response.body.object).toBe('chat.completion')
    expect(flash.response.body.choices[0].message.content).toBe('answer to flash-1')
    const errors = await read(done.error_file_id)
    expect(errors.map((l) => [l.custom_id, l.response?.status_code])).toEqual([['flash-fail', 400]])
  }, 40_000)

  test('a batch cancelled through the SDK cancels its provider batch; the lines that did not run come back as batch_cancelled', async () => {
    const line = (custom_id: string) => ({
      custom_id,
      method: 'POST',
      url: '/v1/chat/completions',
      body: { model: 'claude/claude-sonnet-4-5', messages: [{ role: 'user', content: custom_id }] },
    })
    const created = await submit([line('c-1'), line('c-2')], '/v1/chat/completions')
    // Wait until the gateway has handed the lines to Anthropic (the mock runs nothing until told).
    const deadline = Date.now() + 20_000
    while (![...anthropic.batches.values()].some((b) => b.requests.some((r) => r.custom_id === 'c-1'))) {
      if (Date.now() > deadline) throw new Error('the lines never reached Anthropic')
      await Bun.sleep(50)
    }
    const messageBatch = [...anthropic.batches.values()].find((b) => b.requests.some((r) => r.custom_id === 'c-1'))!
    await client.batches.cancel(created.id)
    // The mock's batch runs nothing until the gateway has asked Anthropic to cancel it.
    while (messageBatch.status === 'in_progress') {
      if (Date.now() > deadline) throw new Error('Anthropic was never asked to cancel')
      await Bun.sleep(50)
    }
    const done = await finished(created.id)
    expect(done.status).toBe('cancelled')
    expect(anthropic.calls.some((c) => c.method === 'POST' && c.path === `/v1/messages/batches/${messageBatch.id}/cancel`)).toBe(true)
    const errors = await read(done.error_file_id)
    expect(errors.map((l) => [l.custom_id, l.error?.code]).sort()).toEqual([
      ['c-1', 'batch_cancelled'],
      ['c-2', 'batch_cancelled'],
    ])
  }, 40_000)

  test('a provider batch that expires: the lines it did not answer come back as batch_expired, the ones it did as answers', async () => {
    gemini.expireAfterFirst = true
    let done: Awaited<ReturnType<typeof finished>>
    try {
      const line = (custom_id: string) => ({
        custom_id,
        method: 'POST',
        url: '/v1/chat/completions',
        body: { model: 'google/gemini-2.5-flash-lite', messages: [{ role: 'user', content: custom_id }] },
      })
      const created = await submit([line('e-1'), line('e-2'), line('e-3')], '/v1/chat/completions')
      done = await finished(created.id)
    } finally {
      gemini.expireAfterFirst = false
    }
    expect(done.request_counts).toEqual({ total: 3, completed: 1, failed: 2 })
    expect((await read(done.output_file_id)).map((l) => l.custom_id)).toEqual(['e-1'])
    expect((await read(done.error_file_id)).map((l) => [l.custom_id, l.error?.code]).sort()).toEqual([
      ['e-2', 'batch_expired'],
      ['e-3', 'batch_expired'],
    ])
  }, 40_000)

  test('responses lines go over chat to Anthropic and Gemini and come back as Response documents', async () => {
    const responses = (custom_id: string, model: string, input: string) => ({
      custom_id,
      method: 'POST',
      url: '/v1/responses',
      body: { model, instructions: 'Be brief.', input, max_output_tokens: 30 },
    })
    const created = await submit([responses('claude-r', 'claude/claude-sonnet-4-5', 'hello'), responses('gemini-r', 'google/gemini-2.5-flash', 'hello')], '/v1/responses')
    const done = await finished(created.id)
    expect(done.status).toBe('completed')
    expect(done.request_counts).toEqual({ total: 2, completed: 2, failed: 0 })
    const sent = [...anthropic.batches.values()].at(-1)!.requests
    expect(sent.map((r) => [r.custom_id, r.params.system, r.params.max_tokens])).toEqual([['claude-r', 'Be brief.', 30]])

    const output = await read(done.output_file_id)
    for (const id of ['claude-r', 'gemini-r']) {
      const line = output.find((l) => l.custom_id === id)
      expect(line.response.status_code).toBe(200)
      expect(line.response.body).toMatchObject({ object: 'response', status: 'completed', instructions: 'Be brief.', max_output_tokens: 30 })
      expect(line.response.body.output[0].content[0].text).toBe(`answer to ${id}`)
    }
  }, 40_000)
})

import { afterEach, describe, expect, test } from 'bun:test'
import { GatewayError } from '../../../errors/gateway-error.ts'
import type { ProviderInstance } from '../../../providers/types.ts'
import { type MockAnthropicBatches, mockAnthropicBatches } from '../../../../test/helpers/mock-anthropic-batches.ts'
import type { BatchResultLine, PreparedBatchLine, ProviderBatchApi, ProviderBatchJob } from '../../provider-batch-api.ts'
import { providerAdapters } from '../../../../plugins/index.ts'
import { providerBatchApis } from '../index.ts'

const providerBatchApi = providerBatchApis(providerAdapters)

const KEY = 'sk-ant-batch-test-0123456789'
const signal = new AbortController().signal
let mock: MockAnthropicBatches | undefined
afterEach(() => mock?.stop())

const provider = (baseUrl: string): ProviderInstance => ({ name: 'claude', type: 'anthropic', baseUrl, apiKey: KEY, staticModels: [], nativeResponses: false })
const batchApi = providerBatchApi('anthropic') as ProviderBatchApi

const chatLine = (customId: string, content: string, extra: Record<string, unknown> = {}): PreparedBatchLine => ({
  customId,
  endpointId: 'chat.completions',
  body: {
    model: 'claude-sonnet-4-5',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content },
    ],
    ...extra,
  },
})

async function submitted(p: ProviderInstance, lines: PreparedBatchLine[]): Promise<ProviderBatchJob> {
  const job = await batchApi.submit(p, lines, signal)
  if (job instanceof GatewayError) throw job
  return job
}

async function allResults(p: ProviderInstance, job: ProviderBatchJob): Promise<BatchResultLine[]> {
  const out: BatchResultLine[] = []
  for await (const line of batchApi.results(p, job, signal)) {
    if (line instanceof GatewayError) throw line
    out.push(line)
  }
  return out
}

describe('Anthropic Message Batches', () => {
  test('chat lines are translated to Messages params, polled, and the results come back as chat completions under the same custom_ids', async () => {
    mock = mockAnthropicBatches({ apiKey: KEY, requestsPerStep: 2 })
    const p = provider(mock.url)
    const job = await submitted(p, [
      chatLine('q-1', 'hello', { max_tokens: 50, stream: true, stream_options: { include_usage: true } }),
      chatLine('q-2', 'please FAIL'),
      chatLine('q-3', 'third'),
    ])

    const create = mock.calls.find((c) => c.method === 'POST' && c.path === '/v1/messages/batches')!
    expect(create.headers['x-api-key']).toBe(KEY)
    expect(create.headers['anthropic-version']).toBe('2023-06-01')
    const requests = (create.body as { requests: { custom_id: string; params: Record<string, unknown> }[] }).requests
    expect(requests.map((r) => r.custom_id)).toEqual(['q-1', 'q-2', 'q-3'])
    // The live adapter's translation: system apart, max_tokens as given or its default, no stream in a batch.
    expect(requests[0]!.params).toEqual({
      model: 'claude-sonnet-4-5',
      system: 'Be brief.',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }],
      max_tokens: 50,
    })
    expect(requests[1]!.params.max_tokens).toBe(4096)

    expect(await batchApi.status(p, job, signal)).toEqual({ state: 'in_progress', counts: { total: 3, completed: 0, failed: 0 } })
    mock.advance()
    expect(await batchApi.status(p, job, signal)).toEqual({ state: 'in_progress', counts: { total: 3, completed: 1, failed: 1 } })
    mock.advance()
    expect(await batchApi.status(p, job, signal)).toEqual({ state: 'completed', counts: { total: 3, completed: 2, failed: 1 } })

    const results = await allResults(p, job)
    expect(results.map((r) => [r.customId, r.response?.statusCode])).toEqual([
      ['q-1', 200],
      ['q-2', 400],
      ['q-3', 200],
    ])
    const completion = results[0]!.response!.body as Record<string, any>
    expect(completion.object).toBe('chat.completion')
    expect(completion.model).toBe('claude-sonnet-4-5')
    expect(completion.choices[0].message.content).toBe('answer to q-1')
    expect(completion.choices[0].finish_reason).toBe('stop')
    expect(completion.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 4, total_tokens: 14 })
    const failure = results[1]!.response!.body as { error: Record<string, unknown> }
    expect(failure.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_request_error', provider: 'claude', message: 'The request asked to fail.' })
    // The results are read from the configured host, not from wherever `results_url` points.
    expect(mock.calls.some((c) => c.path === `/v1/messages/batches/${job.id}/results`)).toBe(true)
  })

  test('cleanup deletes the ended Message Batch at Anthropic with the provider key; one still processing is refused and reported', async () => {
    mock = mockAnthropicBatches({ apiKey: KEY, requestsPerStep: 5 })
    const p = provider(mock.url)
    const job = await submitted(p, [chatLine('c-1', 'hello'), chatLine('c-2', 'again')])
    const early = await batchApi.cleanup!(p, job, signal)
    expect(early).toBeInstanceOf(GatewayError)
    expect(mock.deleted.has(job.id)).toBe(false)

    mock.finishAll()
    expect((await allResults(p, job)).map((r) => r.customId)).toEqual(['c-1', 'c-2'])
    expect(await batchApi.cleanup!(p, job, signal)).toBeUndefined()
    const deleted = mock.calls.filter((c) => c.method === 'DELETE')
    expect(deleted.map((c) => [c.path, c.headers['x-api-key']])).toEqual([
      [`/v1/messages/batches/${job.id}`, KEY],
      [`/v1/messages/batches/${job.id}`, KEY],
    ])
    expect([...mock.deleted]).toEqual([job.id])
    expect(((await batchApi.status(p, job, signal)) as GatewayError).status).toBeGreaterThanOrEqual(400)
  })

  test("custom_ids Anthropic does not allow are sent as line-<n> and come back as the caller's", async () => {
    mock = mockAnthropicBatches({ apiKey: KEY })
    const p = provider(mock.url)
    const ids = ['request #1 (ünïcode)', 'x'.repeat(65), 'plain']
    const job = await submitted(
      p,
      ids.map((id) => chatLine(id, `text for ${id}`)),
    )
    const sent = (mock.calls[0]!.body as { requests: { custom_id: string }[] }).requests.map((r) => r.custom_id)
    expect(sent).toEqual(['line-0', 'line-1', 'line-2'])
    mock.finishAll()
    expect((await allResults(p, job)).map((r) => r.customId)).toEqual(ids)
  })

  test('a line the model cannot take is answered with the 400 a live call gets; the others run', async () => {
    mock = mockAnthropicBatches({ apiKey: KEY })
    const p = provider(mock.url)
    const schemaLine = chatLine('schema', 'json please', {
      model: 'claude-3-haiku-20240307',
      response_format: { type: 'json_schema', json_schema: { name: 'x', strict: true, schema: { type: 'object', properties: { a: { type: 'string' } } } } },
    })
    const job = await submitted(p, [schemaLine, chatLine('fine', 'hello')])
    const sent = (mock.calls[0]!.body as { requests: { custom_id: string }[] }).requests.map((r) => r.custom_id)
    mock.finishAll()
    const status = await batchApi.status(p, job, signal)
    const results = await allResults(p, job)
    // Claude 3 models cannot follow a JSON schema (the live adapter's 400): that line never reaches Anthropic.
    expect(sent).toEqual(['fine'])
    expect(status).toEqual({ state: 'completed', counts: { total: 2, completed: 1, failed: 1 } })
    expect(results.map((r) => [r.customId, r.response?.statusCode])).toEqual([
      ['schema', 400],
      ['fine', 200],
    ])
    expect((results[0]!.response!.body as { error: { code: string; param: string } }).error).toMatchObject({ code: 'unsupported_parameter', param: 'response_format' })
  })

  test('responses lines go over chat: translated as a live Responses request is, answered as Response documents', async () => {
    mock = mockAnthropicBatches({ apiKey: KEY })
    const p = provider(mock.url)
    const tools = [{ type: 'function', name: 'lookup', description: 'Looks up', parameters: { type: 'object', properties: { q: { type: 'string' } } } }]
    const responsesLine = (customId: string, input: string, extra: Record<string, unknown> = {}): PreparedBatchLine => ({
      customId,
      endpointId: 'responses',
      body: { model: 'claude-sonnet-4-5', instructions: 'Answer in French.', input, max_output_tokens: 30, tools, ...extra },
    })
    const job = await submitted(p, [
      responsesLine('r-1', 'hello'),
      responsesLine('r-2', 'search the web', { tools: [...tools, { type: 'web_search' }] }),
      chatLine('c-1', 'plain chat'),
      responsesLine('r-3', 'again'),
    ])
    const requests = (mock.calls[0]!.body as { requests: { custom_id: string; params: Record<string, unknown> }[] }).requests
    expect(requests.map((r) => r.custom_id)).toEqual(['r-1', 'c-1', 'r-3'])
    expect(requests[0]!.params).toMatchObject({
      system: 'Answer in French.',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }],
      max_tokens: 30,
      tools: [{ name: 'lookup', description: 'Looks up', input_schema: tools[0]!.parameters }],
    })
    // The two responses lines share one request envelope.
    expect(JSON.parse(job.detail.responsesEnvelopes!)).toHaveLength(1)
    mock.finishAll()
    const results = await allResults(p, job)
    expect(results.map((r) => [r.customId, r.response?.statusCode])).toEqual([
      ['r-2', 400],
      ['r-1', 200],
      ['c-1', 200],
      ['r-3', 200],
    ])
    expect((results[0]!.response!.body as any).error).toMatchObject({ code: 'unsupported_tool', param: 'tools' })
    const response = results[1]!.response!.body as Record<string, any>
    expect(response.object).toBe('response')
    expect(response.status).toBe('completed')
    expect(response.instructions).toBe('Answer in French.')
    expect(response.max_output_tokens).toBe(30)
    expect(response.tools).toEqual(tools)
    expect(response.output[0].content[0].text).toBe('answer to r-1')
    expect(response.usage).toMatchObject({ input_tokens: 10, output_tokens: 4, total_tokens: 14 })
    expect((results[2]!.response!.body as any).object).toBe('chat.completion')
    expect(batchApi.supports('responses')).toBe(true)
  })

  test('an overloaded line is a 503, as a live call reports it', async () => {
    mock = mockAnthropicBatches({ apiKey: KEY })
    const p = provider(mock.url)
    const job = await submitted(p, [chatLine('busy', 'OVERLOAD')])
    mock.finishAll()
    const [line] = await allResults(p, job)
    expect(line!.response!.statusCode).toBe(503)
    expect((line!.response!.body as { error: { code: string } }).error.code).toBe('overloaded_error')
  })

  test('an expired batch: what ran, and the rest as batch_expired', async () => {
    mock = mockAnthropicBatches({ apiKey: KEY, requestsPerStep: 1 })
    const p = provider(mock.url)
    const job = await submitted(p, [chatLine('a', 'one'), chatLine('b', 'two')])
    mock.advance()
    mock.expire(job.id)
    mock.advance()
    expect(await batchApi.status(p, job, signal)).toEqual({ state: 'expired', counts: { total: 2, completed: 1, failed: 1 } })
    expect((await allResults(p, job)).map((r) => [r.customId, r.response?.statusCode ?? r.error?.code])).toEqual([
      ['a', 200],
      ['b', 'batch_expired'],
    ])
  })

  test('cancel: the batch cancels, the lines not run come back as batch_cancelled; an ended batch is not asked again', async () => {
    mock = mockAnthropicBatches({ apiKey: KEY, requestsPerStep: 1 })
    const p = provider(mock.url)
    const job = await submitted(p, [chatLine('a', 'one'), chatLine('b', 'two'), chatLine('c', 'three')])
    mock.advance()
    expect(await batchApi.cancel(p, job, signal)).toBeUndefined()
    expect(await batchApi.status(p, job, signal)).toMatchObject({ state: 'in_progress' })
    mock.advance()
    expect(await batchApi.status(p, job, signal)).toEqual({ state: 'cancelled', counts: { total: 3, completed: 1, failed: 2 } })
    expect((await allResults(p, job)).map((r) => [r.customId, r.error?.code ?? null])).toEqual([
      ['a', null],
      ['b', 'batch_cancelled'],
      ['c', 'batch_cancelled'],
    ])
    expect(await batchApi.cancel(p, job, signal)).toBeUndefined()
    expect(mock.calls.filter((c) => c.path.endsWith('/cancel'))).toHaveLength(1)
  })

  test('a refused key is a GatewayError naming the provider; only chat lines are taken', async () => {
    mock = mockAnthropicBatches({ apiKey: 'another' })
    const result = await batchApi.submit(provider(mock.url), [chatLine('a', 'one')], signal)
    expect((result as GatewayError).status).toBe(502)
    expect((result as GatewayError).provider).toBe('claude')
    expect(batchApi.supports('chat.completions')).toBe(true)
    expect(batchApi.supports('embeddings')).toBe(false)
  })
})

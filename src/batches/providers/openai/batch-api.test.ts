import { afterEach, describe, expect, test } from 'bun:test'
import { GatewayError } from '../../../errors/gateway-error.ts'
import type { ProviderType } from '../../../config/provider-catalog.ts'
import type { ProviderInstance } from '../../../providers/types.ts'
import { type MockOpenAIBatches, mockOpenAIBatches } from '../../../../test/helpers/mock-openai-batches.ts'
import type { BatchResultLine, PreparedBatchLine, ProviderBatchApi, ProviderBatchJob } from '../../provider-batch-api.ts'
import { providerAdapters } from '../../../../plugins/index.ts'
import { providerBatchApis } from '../index.ts'

const providerBatchApi = providerBatchApis(providerAdapters)

const KEY = 'sk-batch-test-key-0123456789'
const signal = new AbortController().signal
let mock: MockOpenAIBatches | undefined
afterEach(() => mock?.stop())

function instance(type: ProviderType, baseUrl: string, extra: Partial<ProviderInstance> = {}): ProviderInstance {
  return { name: `my-${type}`, type, baseUrl, apiKey: KEY, staticModels: [], nativeResponses: true, ...extra }
}

const chatLine = (customId: string, content: string, model = 'gpt-4o-mini'): PreparedBatchLine => ({
  customId,
  endpointId: 'chat.completions',
  body: { model, messages: [{ role: 'user', content }] },
})

function api(type: ProviderType): ProviderBatchApi {
  const found = providerBatchApi(type)
  if (!found) throw new Error(`no batch API for ${type}`)
  return found
}

async function submitted(batchApi: ProviderBatchApi, provider: ProviderInstance, lines: PreparedBatchLine[]): Promise<ProviderBatchJob> {
  const job = await batchApi.submit(provider, lines, signal)
  if (job instanceof GatewayError) throw job
  return job
}

async function allResults(batchApi: ProviderBatchApi, provider: ProviderInstance, job: ProviderBatchJob): Promise<BatchResultLine[]> {
  const out: BatchResultLine[] = []
  for await (const line of batchApi.results(provider, job, signal)) {
    if (line instanceof GatewayError) throw line
    out.push(line)
  }
  return out.sort((a, b) => a.customId.localeCompare(b.customId))
}

describe('OpenAI batches', () => {
  test('submit uploads the JSONL, creates the batch, polls it through its states and reads both files back', async () => {
    mock = mockOpenAIBatches({ apiKey: KEY })
    const provider = instance('openai', mock.url)
    const batchApi = api('openai')
    const job = await submitted(batchApi, provider, [chatLine('a', 'hello'), chatLine('b', 'please FAIL'), chatLine('c', 'héllo 🙂')])

    const upload = mock.calls.find((c) => c.path === '/v1/files')!
    expect(upload.headers.authorization).toBe(`Bearer ${KEY}`)
    expect(
      (upload.body as string)
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual([
      { custom_id: 'a', method: 'POST', url: '/v1/chat/completions', body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] } },
      { custom_id: 'b', method: 'POST', url: '/v1/chat/completions', body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'please FAIL' }] } },
      { custom_id: 'c', method: 'POST', url: '/v1/chat/completions', body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'héllo 🙂' }] } },
    ])
    const [batch] = [...mock.batches.values()]
    expect(job.id).toBe(batch!.id)

    expect(await batchApi.status(provider, job, signal)).toEqual({ state: 'in_progress', counts: { total: 3, completed: 0, failed: 0 } })
    mock.advance() // in_progress
    mock.advance() // lines run: finalizing
    expect(await batchApi.status(provider, job, signal)).toEqual({ state: 'in_progress', counts: { total: 3, completed: 2, failed: 1 } })
    mock.advance() // completed
    expect(await batchApi.status(provider, job, signal)).toEqual({ state: 'completed', counts: { total: 3, completed: 2, failed: 1 } })

    const results = await allResults(batchApi, provider, job)
    expect(results.map((r) => [r.customId, r.response?.statusCode, r.error])).toEqual([
      ['a', 200, null],
      ['b', 400, null],
      ['c', 200, null],
    ])
    expect((results[0]!.response!.body as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe('answer to a')
    expect((results[1]!.response!.body as { error: { message: string } }).error.message).toBe('The line asked to fail.')
    expect(mock.calls.every((c) => c.headers.authorization === `Bearer ${KEY}`)).toBe(true)
  })

  test('cleanup deletes the input, output and error files of every part; a file already gone is reported, the others still go', async () => {
    mock = mockOpenAIBatches({ apiKey: KEY })
    const provider = instance('openai', mock.url)
    const batchApi = api('openai')
    const job = await submitted(batchApi, provider, [
      chatLine('chat-1', 'one'),
      chatLine('chat-2', 'please FAIL'),
      { customId: 'emb-1', endpointId: 'embeddings', body: { model: 'text-embedding-3-small', input: 'x' } },
    ])
    mock.finishAll()
    await allResults(batchApi, provider, job)
    const made = [...mock.batches.values()].flatMap((b) => [b.input_file_id, b.output_file_id, b.error_file_id]).filter((id): id is string => id !== null)
    expect(made).toHaveLength(5) // two inputs, two outputs, the chat batch's error file
    expect(await batchApi.cleanup!(provider, job, signal)).toBeUndefined()
    expect(mock.deleted.toSorted()).toEqual(made.toSorted())
    expect(mock.files.size).toBe(0)
    expect(mock.calls.filter((c) => c.method === 'DELETE').every((c) => c.headers.authorization === `Bearer ${KEY}`)).toBe(true)

    const again = await batchApi.cleanup!(provider, job, signal)
    expect(again).toBeInstanceOf(GatewayError)
    expect(mock.calls.filter((c) => c.method === 'DELETE')).toHaveLength(10)
  })

  test('lines of several endpoints go to one batch per endpoint, and the status counts them together', async () => {
    mock = mockOpenAIBatches({ apiKey: KEY })
    const provider = instance('openai', mock.url)
    const batchApi = api('openai')
    const job = await submitted(batchApi, provider, [
      chatLine('chat-1', 'one'),
      { customId: 'emb-1', endpointId: 'embeddings', body: { model: 'text-embedding-3-small', input: 'x' } },
      chatLine('chat-2', 'two'),
    ])
    expect([...mock.batches.values()].map((b) => [b.endpoint, b.lines.map((l) => l.custom_id)])).toEqual([
      ['/v1/chat/completions', ['chat-1', 'chat-2']],
      ['/v1/embeddings', ['emb-1']],
    ])
    mock.finishAll()
    expect(await batchApi.status(provider, job, signal)).toEqual({ state: 'completed', counts: { total: 3, completed: 3, failed: 0 } })
    const results = await allResults(batchApi, provider, job)
    expect(results.map((r) => r.customId)).toEqual(['chat-1', 'chat-2', 'emb-1'])
    expect((results[2]!.response!.body as { object: string }).object).toBe('list')
  })

  test('more lines than one input file may hold go to several files and batches, in order, counted together', async () => {
    mock = mockOpenAIBatches({ apiKey: KEY })
    const provider = instance('openai', mock.url)
    const batchApi = api('openai')
    const lines = Array.from({ length: 50_001 }, (_, i) => chatLine(`l${i}`, 'x'))
    const job = await submitted(batchApi, provider, lines)
    expect([...mock.batches.values()].map((b) => [b.lines.length, b.lines[0]!.custom_id])).toEqual([
      [50_000, 'l0'],
      [1, 'l50000'],
    ])
    mock.finishAll()
    expect(await batchApi.status(provider, job, signal)).toEqual({ state: 'completed', counts: { total: 50_001, completed: 50_001, failed: 0 } })
  }, 30_000)

  test('a batch the provider refuses at validation is failed, with its reason', async () => {
    mock = mockOpenAIBatches({ apiKey: KEY })
    const provider = instance('openai', mock.url)
    const batchApi = api('openai')
    const job = await submitted(batchApi, provider, [chatLine('same', 'one'), chatLine('same', 'two')])
    mock.advance()
    const status = await batchApi.status(provider, job, signal)
    expect(status).toEqual({ state: 'failed', counts: { total: 2, completed: 0, failed: 0 }, error: 'line 2: custom_id same is not unique' })
    // No files: every line of the input file comes back failed, with the reason.
    const error = { code: 'batch_failed', message: 'The provider failed the batch before this line ran: line 2: custom_id same is not unique' }
    expect(await allResults(batchApi, provider, job)).toEqual([
      { customId: 'same', response: null, error },
      { customId: 'same', response: null, error },
    ])
  })

  test('an expired batch returns what ran and the rest as batch_expired errors', async () => {
    mock = mockOpenAIBatches({ apiKey: KEY, linesPerStep: 1 })
    const provider = instance('openai', mock.url)
    const batchApi = api('openai')
    const job = await submitted(batchApi, provider, [chatLine('a', 'one'), chatLine('b', 'two'), chatLine('c', 'three')])
    mock.advance() // in_progress
    mock.advance() // line a
    mock.expire(job.id)
    mock.advance()
    expect(await batchApi.status(provider, job, signal)).toEqual({ state: 'expired', counts: { total: 3, completed: 1, failed: 2 } })
    const results = await allResults(batchApi, provider, job)
    expect(results.map((r) => [r.customId, r.response?.statusCode ?? null, r.error?.code ?? null])).toEqual([
      ['a', 200, null],
      ['b', null, 'batch_expired'],
      ['c', null, 'batch_expired'],
    ])
  })

  test('a provider that leaves the lines not run out of its files: they come back from the input file as batch_expired', async () => {
    mock = mockOpenAIBatches({ apiKey: KEY, linesPerStep: 1, listsLinesNotRun: false })
    const provider = instance('openai', mock.url)
    const batchApi = api('openai')
    const job = await submitted(batchApi, provider, [chatLine('a', 'one'), chatLine('b', 'two'), chatLine('c', 'three')])
    mock.advance()
    mock.advance()
    mock.expire(job.id)
    mock.advance()
    const results = await allResults(batchApi, provider, job)
    expect(results.map((r) => [r.customId, r.response?.statusCode ?? null, r.error?.code ?? null])).toEqual([
      ['a', 200, null],
      ['b', null, 'batch_expired'],
      ['c', null, 'batch_expired'],
    ])
    expect(mock.calls.filter((c) => c.path === `/v1/files/${mock!.batches.get(job.id)!.input_file_id}/content`)).toHaveLength(1)
  })

  test('cancel cancels a running batch; the lines not run come back as batch_cancelled; a final batch is left alone', async () => {
    mock = mockOpenAIBatches({ apiKey: KEY, linesPerStep: 1 })
    const provider = instance('openai', mock.url)
    const batchApi = api('openai')
    const job = await submitted(batchApi, provider, [chatLine('a', 'one'), chatLine('b', 'two')])
    mock.advance()
    mock.advance()
    expect(await batchApi.cancel(provider, job, signal)).toBeUndefined()
    expect(mock.calls.filter((c) => c.path.endsWith('/cancel'))).toHaveLength(1)
    expect((await batchApi.status(provider, job, signal)) as { state: string }).toMatchObject({ state: 'in_progress' })
    mock.advance()
    expect(await batchApi.status(provider, job, signal)).toEqual({ state: 'cancelled', counts: { total: 2, completed: 1, failed: 1 } })
    expect((await allResults(batchApi, provider, job)).map((r) => [r.customId, r.error?.code ?? null])).toEqual([
      ['a', null],
      ['b', 'batch_cancelled'],
    ])
    expect(await batchApi.cancel(provider, job, signal)).toBeUndefined()
    expect(mock.calls.filter((c) => c.path.endsWith('/cancel'))).toHaveLength(1)
  })

  test("the provider's refusal is a GatewayError naming the provider, without its key", async () => {
    mock = mockOpenAIBatches({ apiKey: 'another-key' })
    const provider = instance('openai', mock.url)
    const result = await api('openai').submit(provider, [chatLine('a', 'one')], signal)
    expect(result).toBeInstanceOf(GatewayError)
    const error = result as GatewayError
    expect(error.status).toBe(502)
    expect(error.provider).toBe('my-openai')
    expect(error.message).not.toContain(KEY)
  })

  test('a redirect is refused, never followed', async () => {
    const target = mockOpenAIBatches({ apiKey: KEY })
    const redirector = Bun.serve({ port: 0, fetch: () => new Response(null, { status: 307, headers: { location: `${target.url}/files` } }) })
    try {
      const result = await api('openai').submit(instance('openai', `http://127.0.0.1:${redirector.port}/v1`), [chatLine('a', 'one')], signal)
      expect((result as GatewayError).code).toBe('upstream_redirect')
      expect(target.calls).toHaveLength(0)
    } finally {
      redirector.stop(true)
      target.stop()
    }
  })
})

describe('Azure OpenAI batches', () => {
  test('a classic resource: api-version on every call, api-key, lines addressed /chat/completions with the deployment as model', async () => {
    mock = mockOpenAIBatches({ apiKey: KEY, keyHeader: 'api-key', prefix: '/openai', apiVersion: '2025-03-01-preview', endpoints: ['/chat/completions'] })
    const provider = instance('azure', mock.url, { apiVersion: '2025-03-01-preview' })
    const batchApi = api('azure')
    const job = await submitted(batchApi, provider, [chatLine('a', 'one', 'my-global-batch-deployment')])
    mock.finishAll()
    expect(await batchApi.status(provider, job, signal)).toMatchObject({ state: 'completed' })
    const [line] = await allResults(batchApi, provider, job)
    expect(line).toMatchObject({ customId: 'a', response: { statusCode: 200 } })
    const upload = mock.calls.find((c) => c.path === '/openai/files')!
    expect(JSON.parse((upload.body as string).trim())).toMatchObject({ url: '/chat/completions', body: { model: 'my-global-batch-deployment' } })
    expect(mock.calls.every((c) => c.search.includes('api-version=2025-03-01-preview') && c.headers['api-key'] === KEY && !c.headers.authorization)).toBe(true)
  })

  test('the Foundry models endpoint has no batch API: a 400, nothing sent', async () => {
    const result = await api('azure').submit(instance('azure', 'http://127.0.0.1:9/models'), [chatLine('a', 'one')], signal)
    expect((result as GatewayError).status).toBe(400)
    expect((result as GatewayError).code).toBe('batch_unsupported')
  })

  test('Azure takes chat lines only; Groq chat lines only; OpenAI all four', () => {
    expect(['chat.completions', 'responses', 'embeddings', 'completions'].filter((e) => api('openai').supports(e))).toHaveLength(4)
    expect(api('azure').supports('embeddings')).toBe(false)
    expect(api('groq').supports('chat.completions')).toBe(true)
    expect(api('groq').supports('responses')).toBe(false)
    expect(providerBatchApi('deepseek')).toBeUndefined()
  })
})

describe('Groq batches', () => {
  test('under /openai/v1 with a bearer key', async () => {
    mock = mockOpenAIBatches({ apiKey: KEY, prefix: '/openai/v1', endpoints: ['/v1/chat/completions'] })
    const provider = instance('groq', mock.url)
    const batchApi = api('groq')
    const job = await submitted(batchApi, provider, [chatLine('g', 'hi', 'llama-3.1-8b-instant')])
    mock.finishAll()
    expect(await allResults(batchApi, provider, job)).toMatchObject([{ customId: 'g', response: { statusCode: 200 } }])
  })
})

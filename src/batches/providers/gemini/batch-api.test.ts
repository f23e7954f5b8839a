import { afterEach, describe, expect, test } from 'bun:test'
import { GatewayError } from '../../../errors/gateway-error.ts'
import type { ProviderInstance } from '../../../providers/types.ts'
import { type MockGeminiBatches, mockGeminiBatches } from '../../../../test/helpers/mock-gemini-batches.ts'
import type { BatchResultLine, PreparedBatchLine, ProviderBatchApi, ProviderBatchJob } from '../../provider-batch-api.ts'
import { providerAdapters } from '../../../../plugins/index.ts'
import { providerBatchApis } from '../index.ts'

const providerBatchApi = providerBatchApis(providerAdapters)

const KEY = 'AIza-gemini-batch-test-0123456789'
const signal = new AbortController().signal
let mock: MockGeminiBatches | undefined
afterEach(() => mock?.stop())

const provider = (baseUrl: string): ProviderInstance => ({ name: 'google', type: 'gemini', baseUrl, apiKey: KEY, staticModels: [], nativeResponses: false })
const batchApi = providerBatchApi('gemini') as ProviderBatchApi

const chatLine = (customId: string, content: string, model = 'gemini-2.5-flash', extra: Record<string, unknown> = {}): PreparedBatchLine => ({
  customId,
  endpointId: 'chat.completions',
  body: {
    model,
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

describe('Gemini batch mode', () => {
  test('one inline batch per model, the live translation both ways, states and stats followed, custom_ids kept', async () => {
    mock = mockGeminiBatches({ apiKey: KEY, requestsPerStep: 2 })
    const p = provider(mock.url)
    const job = await submitted(p, [
      chatLine('f-1', 'hello', 'gemini-2.5-flash', { max_tokens: 40, temperature: 0.2, stream: true }),
      chatLine('p-1', 'bonjour', 'gemini-2.5-pro'),
      chatLine('f-2', 'please FAIL'),
      chatLine('f-3', 'please BLOCK this'),
    ])
    const creates = mock.calls.filter((c) => c.method === 'POST')
    expect(creates.map((c) => c.path)).toEqual(['/v1beta/models/gemini-2.5-flash:batchGenerateContent', '/v1beta/models/gemini-2.5-pro:batchGenerateContent'])
    expect(creates.every((c) => c.headers['x-goog-api-key'] === KEY)).toBe(true)
    const flash = (creates[0]!.body as any).batch.inputConfig.requests.requests
    expect(flash.map((r: any) => r.metadata.key)).toEqual(['f-1', 'f-2', 'f-3'])
    // The live adapter's translation: system instruction apart, generation config mapped, nothing about streaming.
    expect(flash[0].request).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'hello' }] }],
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      generationConfig: { temperature: 0.2, maxOutputTokens: 40 },
    })
    expect(job.id).toStartWith('batches/')

    expect(await batchApi.status(p, job, signal)).toEqual({ state: 'in_progress', counts: { total: 4, completed: 0, failed: 0 } })
    mock.advance() // running
    mock.advance() // two of each batch's requests
    expect(await batchApi.status(p, job, signal)).toEqual({ state: 'in_progress', counts: { total: 4, completed: 2, failed: 1 } })
    mock.advance()
    expect(await batchApi.status(p, job, signal)).toEqual({ state: 'completed', counts: { total: 4, completed: 3, failed: 1 } })

    const results = await allResults(p, job)
    expect(results.map((r) => [r.customId, r.response?.statusCode])).toEqual([
      ['f-1', 200],
      ['f-2', 400],
      ['f-3', 400],
      ['p-1', 200],
    ])
    const completion = results[0]!.response!.body as Record<string, any>
    expect(completion.object).toBe('chat.completion')
    expect(completion.choices[0].message.content).toBe('answer to f-1')
    expect(completion.usage).toMatchObject({ prompt_tokens: 8, completion_tokens: 3, total_tokens: 11 })
    expect((results[1]!.response!.body as any).error).toMatchObject({ code: 'INVALID_ARGUMENT', message: 'The request asked to fail.', provider: 'google' })
    expect((results[2]!.response!.body as any).error).toMatchObject({ code: 'content_filter', provider: 'google' })
  })

  test('a responses line goes over chat and comes back as a Response document', async () => {
    mock = mockGeminiBatches({ apiKey: KEY })
    const p = provider(mock.url)
    const job = await submitted(p, [
      { customId: 'r', endpointId: 'responses', body: { model: 'gemini-2.5-flash', instructions: 'Be brief.', input: 'hello', max_output_tokens: 20 } },
    ])
    const [request] = (mock.calls[0]!.body as any).batch.inputConfig.requests.requests
    expect(request.request).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'hello' }] }],
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      generationConfig: { maxOutputTokens: 20 },
    })
    mock.finishAll()
    const [line] = await allResults(p, job)
    const response = line!.response!.body as Record<string, any>
    expect(response).toMatchObject({ object: 'response', status: 'completed', instructions: 'Be brief.', model: 'gemini-2.5-flash' })
    expect(response.output[0].content[0].text).toBe('answer to r')
  })

  test("the guide's JOB_STATE_ names read the same as the reference's BATCH_STATE_ ones", async () => {
    mock = mockGeminiBatches({ apiKey: KEY, statePrefix: 'JOB_STATE_' })
    const p = provider(mock.url)
    const job = await submitted(p, [chatLine('a', 'one')])
    expect(await batchApi.status(p, job, signal)).toMatchObject({ state: 'in_progress' })
    mock.finishAll()
    expect(await batchApi.status(p, job, signal)).toEqual({ state: 'completed', counts: { total: 1, completed: 1, failed: 0 } })
    expect((await allResults(p, job)).map((r) => r.customId)).toEqual(['a'])
  })

  test('an expired batch gives back the answers it has, and the lines it has none for as batch_expired', async () => {
    mock = mockGeminiBatches({ apiKey: KEY, requestsPerStep: 1 })
    const p = provider(mock.url)
    const job = await submitted(p, [chatLine('a', 'one'), chatLine('b', 'two')])
    mock.advance()
    mock.advance()
    mock.expire(job.id)
    mock.advance()
    expect(await batchApi.status(p, job, signal)).toEqual({ state: 'expired', counts: { total: 2, completed: 1, failed: 0 } })
    expect((await allResults(p, job)).map((r) => [r.customId, r.response?.statusCode ?? r.error?.code])).toEqual([
      ['a', 200],
      ['b', 'batch_expired'],
    ])
  })

  test('cancel cancels each running batch once; a final one is left alone', async () => {
    mock = mockGeminiBatches({ apiKey: KEY })
    const p = provider(mock.url)
    const job = await submitted(p, [chatLine('a', 'one'), chatLine('b', 'two', 'gemini-2.5-pro')])
    expect(await batchApi.cancel(p, job, signal)).toBeUndefined()
    const cancels = mock.calls.filter((c) => c.path.endsWith(':cancel'))
    expect(cancels).toHaveLength(2)
    mock.advance()
    expect(await batchApi.status(p, job, signal)).toMatchObject({ state: 'cancelled' })
    expect((await allResults(p, job)).map((r) => [r.customId, r.error?.code])).toEqual([
      ['a', 'batch_cancelled'],
      ['b', 'batch_cancelled'],
    ])
    expect(await batchApi.cancel(p, job, signal)).toBeUndefined()
    expect(mock.calls.filter((c) => c.path.endsWith(':cancel'))).toHaveLength(2)
  })

  test('a refused key is reported as a refused provider credential, never echoed', async () => {
    mock = mockGeminiBatches({ apiKey: 'another' })
    const result = (await batchApi.submit(provider(mock.url), [chatLine('a', 'one')], signal)) as GatewayError
    expect(result).toBeInstanceOf(GatewayError)
    expect(result.provider).toBe('google')
    expect(result.message).not.toContain(KEY)
    expect(batchApi.supports('embeddings')).toBe(false)
  })
})

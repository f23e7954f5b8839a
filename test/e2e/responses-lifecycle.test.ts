/**
 * The Responses lifecycle (issue 27, item 7) through the official OpenAI SDK: `responses.retrieve` (and its
 * `stream: true` resumption), `responses.delete`, `responses.cancel`, `responses.inputItems.list` and
 * `responses.inputTokens.count`. OpenAI keeps responses itself, so a response it made natively is asked there
 * (the mock speaks OpenAI's routes, errors included); Mistral has no Responses API, so the gateway answers from
 * its own thread store and nothing reaches the upstream. Only the key that made a response sees it.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import OpenAI from 'openai'
import { useGatewaySuite } from '../helpers/gateway-suite.ts'
import { MOCK_INPUT_TOKENS, RESPONSES_TEXT } from '../helpers/mock-openai-upstream.ts'

const t = useGatewaySuite({
  providersFromEnv: false,
  env: (urls) => ({ OPENAI_API_KEY: 'sk-o', OPENAI_BASE_URL: urls.openai, MISTRAL_API_KEY: 'sk-m', MISTRAL_BASE_URL: urls.openai }),
})

let alice: OpenAI
let bob: OpenAI

async function createKey(name: string): Promise<string> {
  const res = await fetch(`${t.gw.url}/admin/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.master}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
  })
  expect(res.status).toBe(201)
  return ((await res.json()) as { key: string }).key
}

const client = (apiKey: string) => new OpenAI({ apiKey, baseURL: t.gw.baseURL, maxRetries: 0 })

beforeAll(async () => {
  alice = client(await createKey('alice'))
  bob = client(await createKey('bob'))
})

const upstreamCalls = () => t.openaiMock.requests.length
const lastUpstream = () => t.openaiMock.requests.at(-1)!

/** Runs `call`, checking that nothing reached the upstream meanwhile; resolves to its result or its error. */
async function withoutUpstream<T>(call: () => Promise<T>): Promise<T | unknown> {
  const before = upstreamCalls()
  const result = await call().catch((e) => e)
  expect(upstreamCalls()).toBe(before)
  return result
}

/** Status and error fields but the message (which names the id asked for). */
function errorShape(error: unknown) {
  const { message: _message, ...fields } = (error as InstanceType<typeof OpenAI.APIError>).error as Record<string, unknown>
  return { status: (error as InstanceType<typeof OpenAI.APIError>).status, ...fields }
}

describe('a response OpenAI made natively: OpenAI is asked, with the same id', () => {
  test('retrieve, list its input items, delete; then it is gone for good', async () => {
    const created = await alice.responses.create({ model: 'openai/gpt-4o-mini', input: 'echo:native one' })
    const { data: retrieved, response } = await alice.responses.retrieve(created.id).withResponse()
    expect(lastUpstream()).toMatchObject({ method: 'GET', path: `/v1/responses/${created.id}` })
    expect(retrieved).toMatchObject({ id: created.id, status: 'completed', output_text: RESPONSES_TEXT })

    const entry = await t.audit.entryFor(response.headers.get('x-request-id')!)
    expect(entry).toMatchObject({ status_code: 200, method: 'GET', path: `/v1/responses/${created.id}`, provider_name: 'openai', resolved_model: 'openai/gpt-4o-mini' })

    const items = await alice.responses.inputItems.list(created.id, { order: 'asc' })
    expect(lastUpstream()).toMatchObject({ method: 'GET', path: `/v1/responses/${created.id}/input_items`, search: '?order=asc' })
    expect(items.data).toMatchObject([{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'echo:native one' }] }])

    await alice.responses.delete(created.id)
    expect(lastUpstream()).toMatchObject({ method: 'DELETE', path: `/v1/responses/${created.id}` })
    // The gateway's thread went with it: the next retrieve is the 404 of an unknown id, answered by the gateway.
    const gone = await withoutUpstream(() => alice.responses.retrieve(created.id))
    expect(gone).toBeInstanceOf(OpenAI.NotFoundError)
  })

  test('a background response is cancelled and its stream resumed upstream; a finished one is refused as OpenAI refuses it', async () => {
    const background = await alice.responses.create({ model: 'openai/gpt-4o-mini', input: 'echo:later', background: true })
    expect(background.status).toBe('queued')
    const events: string[] = []
    const stream = await alice.responses.retrieve(background.id, { stream: true, starting_after: 2 })
    for await (const event of stream) events.push(event.type)
    expect(lastUpstream().search).toBe('?stream=true&starting_after=2')
    expect(events[0]).toBe('response.content_part.added')
    expect(events.at(-1)).toBe('response.completed')

    const cancelled = await alice.responses.cancel(background.id)
    expect(lastUpstream()).toMatchObject({ method: 'POST', path: `/v1/responses/${background.id}/cancel` })
    expect(cancelled.status).toBe('cancelled')

    const finished = await alice.responses.create({ model: 'openai/gpt-4o-mini', input: 'echo:done already' })
    const refused = await alice.responses.cancel(finished.id).catch((e) => e)
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError)
    expect(refused.message).toContain('background=true')
  })

  test('a response made with store: false is not kept by OpenAI: the gateway answers for it, and a follow-up carries the thread', async () => {
    const unkept = await alice.responses.create({ model: 'openai/gpt-4o-mini', input: 'echo:not kept upstream', store: false })
    const retrieved = await withoutUpstream(() => alice.responses.retrieve(unkept.id))
    expect(retrieved).toEqual(unkept)
    await alice.responses.create({ model: 'openai/gpt-4o-mini', input: 'echo:and then?', previous_response_id: unkept.id })
    expect(lastUpstream().body.previous_response_id).toBeUndefined()
    expect(lastUpstream().body.input).toEqual([
      { role: 'user', content: 'echo:not kept upstream' },
      { type: 'message', role: 'assistant', content: unkept.output[0]!.type === 'message' ? unkept.output[0]!.content : [] },
      { role: 'user', content: 'echo:and then?' },
    ])
  })

  test('input_tokens is counted by OpenAI', async () => {
    const { data, response } = await alice.responses.inputTokens.count({ model: 'openai/gpt-4o-mini', input: 'how many tokens?' }).withResponse()
    expect(data).toEqual({ object: 'response.input_tokens', input_tokens: MOCK_INPUT_TOKENS })
    expect(response.headers.get('x-gateway-estimated')).toBeNull()
    expect(lastUpstream()).toMatchObject({ method: 'POST', path: '/v1/responses/input_tokens', body: { model: 'gpt-4o-mini', input: 'how many tokens?' } })
  })
})

describe('a response the gateway translated (Mistral): answered from the thread store, nothing goes upstream', () => {
  test('retrieve gives the response as created; its input items page through; cancel and stream are refused; delete removes it', async () => {
    const first = await alice.responses.create({ model: 'mistral/gpt-4o', input: 'echo:first turn' })
    const second = await alice.responses.create({ model: 'mistral/gpt-4o', input: [{ role: 'user', content: 'echo:second turn' }], previous_response_id: first.id })

    const retrieved = await withoutUpstream(() => alice.responses.retrieve(second.id))
    expect(retrieved).toEqual(second)

    const all = (await withoutUpstream(() => alice.responses.inputItems.list(second.id, { order: 'asc' }))) as Awaited<ReturnType<typeof alice.responses.inputItems.list>>
    expect(all.data.map((item) => (item as { content: { text: string }[] }).content[0]!.text)).toEqual(['echo:first turn', 'first turn', 'echo:second turn'])
    expect(all.data.map((item) => item.type)).toEqual(['message', 'message', 'message'])
    // Newest first by default, a page at a time: the SDK follows `after` to the end.
    const paged: string[] = []
    for await (const item of alice.responses.inputItems.list(second.id, { limit: 1 })) paged.push(item.id!)
    expect(paged).toEqual(all.data.map((item) => item.id!).reverse())

    const cancel = await withoutUpstream(() => alice.responses.cancel(second.id))
    expect(cancel).toBeInstanceOf(OpenAI.BadRequestError)
    expect((cancel as Error).message).toContain('background=true')
    const resume = await withoutUpstream(() => alice.responses.retrieve(second.id, { stream: true }))
    expect(resume).toBeInstanceOf(OpenAI.BadRequestError)

    await withoutUpstream(() => alice.responses.delete(second.id))
    expect(await withoutUpstream(() => alice.responses.retrieve(second.id))).toBeInstanceOf(OpenAI.NotFoundError)
    expect(await withoutUpstream(() => alice.responses.inputItems.list(second.id))).toBeInstanceOf(OpenAI.NotFoundError)
    // The earlier turn is a response of its own, still there.
    expect(((await withoutUpstream(() => alice.responses.retrieve(first.id))) as { id: string }).id).toBe(first.id)
  })

  test('the id in the path is percent-decoded once, never twice', async () => {
    const made = await alice.responses.create({ model: 'mistral/gpt-4o', input: 'echo:escaped' })
    const get = (path: string) => fetch(`${t.gw.baseURL}/responses/${path}`, { headers: { authorization: `Bearer ${alice.apiKey}` } })
    expect((await get(made.id.replace('_', '%5F'))).status).toBe(200)
    expect((await get(made.id.replace('_', '%255F'))).status).toBe(404)
  })

  test('input_tokens is the gateway’s estimate, marked as one', async () => {
    const { data, response } = await alice.responses.inputTokens.count({ model: 'mistral/gpt-4o', input: 'how many tokens are in this sentence?' }).withResponse()
    expect(data.object).toBe('response.input_tokens')
    expect(data.input_tokens).toBeGreaterThan(5)
    expect(data.input_tokens).toBeLessThan(30)
    expect(response.headers.get('x-gateway-estimated')).toBe('true')
  })
})

describe('only the key that made a response reads, lists, cancels or deletes it', () => {
  for (const provider of ['openai', 'mistral'] as const) {
    test(`${provider}: another key gets the 404 of an unknown id for every route, nothing goes upstream, and the owner still has it`, async () => {
      const mine = await alice.responses.create({ model: `${provider}/gpt-4o-mini`, input: 'echo:my secret' })
      const unknown = await bob.responses.retrieve('resp_never_made').catch((e) => e)
      expect(unknown).toBeInstanceOf(OpenAI.NotFoundError)
      const attempts: (() => Promise<unknown>)[] = [
        () => bob.responses.retrieve(mine.id),
        () => bob.responses.retrieve(mine.id, { stream: true }),
        () => bob.responses.inputItems.list(mine.id),
        () => bob.responses.cancel(mine.id),
        () => bob.responses.delete(mine.id),
      ]
      for (const attempt of attempts) expect(errorShape(await withoutUpstream(attempt))).toEqual(errorShape(unknown))
      expect((await alice.responses.retrieve(mine.id)).id).toBe(mine.id)
    })
  }
})

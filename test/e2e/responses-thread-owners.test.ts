/**
 * Responses threads between tenants (issue 26, defect 4): `previous_response_id` continues only a thread the same
 * key made under the same user path. Anyone else gets the 404 an unknown id gets, and nothing goes upstream: not
 * the stored conversation (translated providers), not the id (native providers, which would answer for any key
 * since the gateway calls them with one credential).
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import OpenAI from 'openai'
import { useGatewaySuite } from '../helpers/gateway-suite.ts'

// OpenAI answers Responses natively; Mistral has no Responses API, so the gateway translates (both on the mock).
const t = useGatewaySuite({
  providersFromEnv: false,
  env: (urls) => ({ OPENAI_API_KEY: 'sk-o', OPENAI_BASE_URL: urls.openai, MISTRAL_API_KEY: 'sk-m', MISTRAL_BASE_URL: urls.openai }),
})

let alice: OpenAI
let bob: OpenAI

async function createKey(name: string, fields: Record<string, unknown> = {}): Promise<string> {
  const res = await fetch(`${t.gw.url}/admin/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.master}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name, ...fields }),
  })
  expect(res.status).toBe(201)
  return ((await res.json()) as { key: string }).key
}

const client = (apiKey: string, headers: Record<string, string> = {}) => new OpenAI({ apiKey, baseURL: t.gw.baseURL, maxRetries: 0, defaultHeaders: headers })

beforeAll(async () => {
  alice = client(await createKey('alice'))
  bob = client(await createKey('bob'))
})

/** Status and error fields but the message (which names the id asked for). */
function errorShape(error: unknown) {
  const { message: _message, ...fields } = (error as InstanceType<typeof OpenAI.NotFoundError>).error as Record<string, unknown>
  return { status: (error as InstanceType<typeof OpenAI.NotFoundError>).status, ...fields }
}

/** Runs `call` and returns its error, checking that the upstream was not called meanwhile. */
async function refusedWithoutUpstreamCall(call: () => Promise<unknown>): Promise<unknown> {
  const before = t.openaiMock.requests.length
  const error = await call().catch((e) => e)
  expect(t.openaiMock.requests.length).toBe(before)
  return error
}

describe('a thread on a translated provider', () => {
  test('Bob cannot continue Alice’s thread: 404 as for an unknown id, and her conversation never reaches the upstream', async () => {
    const first = await alice.responses.create({ model: 'mistral/gpt-4o', input: 'echo:my secret is 1234' })
    const bobs = await refusedWithoutUpstreamCall(() => bob.responses.create({ model: 'mistral/gpt-4o', input: 'echo:what was the secret?', previous_response_id: first.id }))
    expect(bobs).toBeInstanceOf(OpenAI.NotFoundError)
    const unknown = await bob.responses.create({ model: 'mistral/gpt-4o', input: 'x', previous_response_id: 'resp_never_made' }).catch((e) => e)
    expect(errorShape(bobs)).toEqual(errorShape(unknown))
    expect(t.openaiMock.requests.some((r) => String(JSON.stringify(r.body)).includes('what was the secret'))).toBe(false)

    await alice.responses.create({ model: 'mistral/gpt-4o', input: 'echo:what was the secret?', previous_response_id: first.id })
    expect(t.openaiMock.requests.at(-1)!.body.messages).toEqual([
      { role: 'user', content: 'echo:my secret is 1234' },
      { role: 'assistant', content: 'my secret is 1234' },
      { role: 'user', content: 'echo:what was the secret?' },
    ])
  })

  test('the same key under another user path cannot continue it either', async () => {
    const key = await createKey('carol')
    const first = await client(key, { 'x-gateway-user-path': '/lab/one' }).responses.create({ model: 'mistral/gpt-4o', input: 'echo:path one' })
    const other = await refusedWithoutUpstreamCall(() =>
      client(key, { 'x-gateway-user-path': '/lab/two' }).responses.create({ model: 'mistral/gpt-4o', input: 'x', previous_response_id: first.id }),
    )
    expect(other).toBeInstanceOf(OpenAI.NotFoundError)
    const same = await client(key, { 'x-gateway-user-path': '/lab/one' }).responses.create({ model: 'mistral/gpt-4o', input: 'echo:again', previous_response_id: first.id })
    expect(same.output_text).toBe('again')
  })
})

describe('a thread on a native provider', () => {
  test('Bob’s request with Alice’s native response id is refused, not forwarded to the provider as if it were his', async () => {
    const first = await alice.responses.create({ model: 'openai/gpt-4o', input: 'native thread' })
    expect(t.openaiMock.requests.at(-1)!.path).toBe('/v1/responses')
    const bobs = await refusedWithoutUpstreamCall(() => bob.responses.create({ model: 'openai/gpt-4o', input: 'go on', previous_response_id: first.id }))
    expect(bobs).toBeInstanceOf(OpenAI.NotFoundError)
    expect((bobs as InstanceType<typeof OpenAI.NotFoundError>).error).toMatchObject({ param: 'previous_response_id', code: 'previous_response_not_found' })

    await alice.responses.create({ model: 'openai/gpt-4o', input: 'go on', previous_response_id: first.id })
    expect(t.openaiMock.requests.at(-1)!.body.previous_response_id).toBe(first.id)
  })

  test('an id the gateway never saw (made before it, or elsewhere) is refused, not forwarded', async () => {
    const never = await refusedWithoutUpstreamCall(() => alice.responses.create({ model: 'openai/gpt-4o', input: 'x', previous_response_id: 'resp_made_elsewhere' }))
    expect(never).toBeInstanceOf(OpenAI.NotFoundError)
  })
})

describe('expiry', () => {
  test('a thread past the retention (30 days by default) is deleted by the retention job; its follow-up is a 404', async () => {
    const first = await alice.responses.create({ model: 'mistral/gpt-4o', input: 'echo:an old conversation' })
    const fresh = await alice.responses.create({ model: 'mistral/gpt-4o', input: 'echo:a recent one' })
    // Ages the first thread by 31 days in the gateway's database (the store stamps each save with the time).
    const db = new Database(t.gw.gateway.config.database.path)
    db.query('UPDATE response_threads SET created_at = $at WHERE id = $id').run({ $at: new Date(Date.now() - 31 * 86_400_000).toISOString(), $id: first.id })
    db.close()
    expect(await t.gw.gateway.threadRetention.runOnce()).toBe(1)
    const expired = await refusedWithoutUpstreamCall(() => alice.responses.create({ model: 'mistral/gpt-4o', input: 'x', previous_response_id: first.id }))
    expect(expired).toBeInstanceOf(OpenAI.NotFoundError)
    expect((await alice.responses.create({ model: 'mistral/gpt-4o', input: 'echo:still here', previous_response_id: fresh.id })).output_text).toBe('still here')
  })
})

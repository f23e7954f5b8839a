/**
 * Model ids cannot walk out of the model's place in an upstream URL (issue 26, defect 2). A key allowed only
 * `gem/gemini-2.0-flash*` once reached gemini-2.5-pro and other Gemini REST methods with the gateway's Google key
 * by a model id with `..` segments; spend was recorded under the cheaper name. Every provider's model id is now
 * checked before it is resolved (400 `invalid_model`, audited, Anthropic's shape on /v1/messages), and the real
 * mock upstreams show what reached them.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { chatCompletion, serveRecording } from '../helpers/mock-openai-upstream.ts'
import { UPSTREAM_KEYS, useGatewaySuite } from '../helpers/gateway-suite.ts'

/** A classic Azure OpenAI resource: `/openai/deployments/{deployment}/chat/completions?api-version=…`. */
const azure = serveRecording((req, url, recorded) => {
  const deployment = /^\/openai\/deployments\/([^/]+)\/chat\/completions$/.exec(url.pathname)?.[1]
  if (req.headers.get('api-key') !== 'azure-key' || !deployment || !url.searchParams.get('api-version'))
    return Response.json({ error: { code: '404', message: 'Resource not found' } }, { status: 404 })
  return Response.json(chatCompletion(deployment, `deployment ${decodeURIComponent(deployment)}`, { model: recorded.body?.model ?? 'gpt-4o' }))
})
afterAll(() => azure.stop())

const t = useGatewaySuite({
  families: ['openai', 'anthropic', 'gemini'],
  providersFromEnv: false,
  yaml: (urls) => `
providers:
  gem: { type: gemini, api_key: ${UPSTREAM_KEYS.gemini}, base_url: "${urls.gemini}" }
  oai: { type: openai, api_key: ${UPSTREAM_KEYS.openai}, base_url: "${urls.openai}" }
  ant: { type: anthropic, api_key: ${UPSTREAM_KEYS.anthropic}, base_url: "${urls.anthropic}" }
  az: { type: azure, api_key: azure-key, base_url: "${azure.origin}/openai" }
`,
})

let flashOnly: string
beforeAll(async () => {
  const res = await fetch(`${t.gw.url}/admin/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.master}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'flash only', allowed_models: ['gem/gemini-2.0-flash*'] }),
  })
  flashOnly = ((await res.json()) as { key: string }).key
})

async function chat(model: string, key = flashOnly) {
  const res = await fetch(`${t.gw.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  })
  return { status: res.status, body: (await res.json()) as any, requestId: res.headers.get('x-request-id')! }
}

/** The only Gemini URL a flash-only key may make the gateway call. */
const FLASH_METHOD = /^\/v1beta\/models\/gemini-2\.0-flash[A-Za-z0-9.-]*:(generateContent|streamGenerateContent)$/

describe('Gemini: the issue’s payloads never leave the model’s method path', () => {
  const payloads = [
    'gem/gemini-2.0-flash/../../v1beta/models/gemini-2.5-pro',
    'gem/gemini-2.0-flash/../../v1beta/cachedContents#',
    'gem/gemini-2.0-flash/%2e%2e/%2e%2e/v1beta/models/gemini-2.5-pro',
    'gem/gemini-2.0-flash%2f..%2f..%2fmodels%2fgemini-2.5-pro',
    'gem/gemini-2.0-flash\\..\\..\\models\\gemini-2.5-pro',
    'gem/gemini-2.0-flash?key=other',
    'gem/gemini-2.0-flash:generateContent?alt=sse#',
    'gem/gemini-2.0-flash/./x',
    'gem/gemini-2.0-flash//x',
    'gem/gemini-2.0-flash\u0000',
    'gem/gemini-2.0-flash/cachedContents',
    'gem/gemini-2.0-flash-extra/../x',
  ]
  for (const model of payloads) {
    test(JSON.stringify(model), async () => {
      const before = t.geminiMock.requests.length
      const res = await chat(model)
      expect(res.status).toBe(400)
      expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_model', param: 'model', provider: '' })
      expect(t.geminiMock.requests.slice(before)).toEqual([])
      const entry = await t.audit.entryFor(res.requestId)
      expect(entry).toMatchObject({ status_code: 400, requested_model: model })
      expect(entry.data.error_code).toBe('invalid_model')
    })
  }

  test('the key’s own model reaches its method path, and nothing the key sent ever reached another', async () => {
    const ok = await chat('gem/gemini-2.0-flash-001')
    expect(ok.status).toBe(200)
    expect(t.geminiMock.requests.at(-1)!.path).toBe('/v1beta/models/gemini-2.0-flash-001:generateContent')
    const posts = t.geminiMock.requests.filter((r) => r.method === 'POST')
    expect(posts.length).toBeGreaterThan(0)
    for (const r of posts) expect(r.path).toMatch(FLASH_METHOD)
  })

  test('a Gemini model id is one segment, or models/<id> and tunedModels/<id>; models/<id> is the bare id for access and prices', async () => {
    // The same model written with its collection resolves to the bare id: the key's pattern sees what the upstream gets.
    const prefixed = await chat('gem/models/gemini-2.0-flash')
    expect(prefixed.status).toBe(200)
    expect(t.geminiMock.requests.at(-1)!.path).toBe('/v1beta/models/gemini-2.0-flash:generateContent')
    expect((await t.audit.entryFor(prefixed.requestId)).resolved_model).toBe('gem/gemini-2.0-flash')
    const pro = await chat('gem/models/gemini-2.5-pro')
    expect(pro.status).toBe(403)

    // Priced as the model that answered, not as an unknown name.
    const master = await chat('gem/models/gemini-2.5-pro', t.master)
    expect(master.status).toBe(200)
    const entry = await t.audit.entryFor(master.requestId)
    expect(entry).toMatchObject({ resolved_model: 'gem/gemini-2.5-pro', provider_name: 'gem' })
    expect(entry.usage?.cost_usd).toBeGreaterThan(0)
    for (const other of ['gem/cachedContents/abc', 'gem/files/abc', 'gem/models/a/b']) expect((await chat(other, t.master)).status).toBe(400)
  })
})

describe('every other provider refuses the same ids before anything is sent', () => {
  test('OpenAI-compatible (model in the body)', async () => {
    const before = t.openaiMock.requests.length
    for (const model of ['oai/gpt-4o/../../x', 'oai/gpt-4o#', 'oai/gpt 4o', 'oai/gpt-4o%2f..']) expect((await chat(model, t.master)).status).toBe(400)
    expect(t.openaiMock.requests.length).toBe(before)
    // Real ids with slashes, colons and @ pass.
    for (const model of ['oai/meta-llama/Llama-3.3-70B-Instruct', 'oai/accounts/fireworks/models/llama-v3p1-8b-instruct', 'oai/llama3.1:8b', 'oai/claude-3-5-sonnet@20240620']) {
      expect((await chat(model, t.master)).status).toBe(200)
      expect(t.openaiMock.requests.at(-1)!.body.model).toBe(model.slice(4))
    }
  })

  test('Anthropic, on /v1/messages: the 400 in Anthropic’s error shape', async () => {
    const before = t.anthropicMock.requests.length
    const res = await fetch(`${t.gw.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': t.master, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'ant/claude-sonnet-4-5/../../v1/models', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
    })
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringContaining("'..'") } })
    expect(t.anthropicMock.requests.length).toBe(before)
    expect((await t.audit.entryFor(res.headers.get('x-request-id')!)).data.error_code).toBe('invalid_model')
  })

  test('Azure: a deployment name is one segment, encoded where it goes', async () => {
    const before = azure.requests.length
    for (const model of ['az/dep/../../deployments/other', 'az/dep/other', 'az/..']) expect((await chat(model, t.master)).status).toBe(400)
    expect(azure.requests.length).toBe(before)
    const ok = await chat('az/gpt-4o:mini@2024', t.master)
    expect(ok.status).toBe(200)
    expect(azure.requests.at(-1)!.path).toBe('/openai/deployments/gpt-4o%3Amini%402024/chat/completions')
  })
})

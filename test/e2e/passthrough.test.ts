/**
 * The governed pass-through (`/p/{provider}/…`): request and answer bytes unchanged both ways but the credential
 * (compared byte for byte with what the upstream received and sent, streams and binary event streams included, no
 * keep-alive slipped in), the provider's credential put in the client's place (an API key header, a SigV4 signature
 * the Bedrock mock recomputes, a Google bearer token), and still governed: keys, the allow-list (deny by default),
 * model access, rate limits, the audit entry with usage and cost read from the answer.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import Anthropic from '@anthropic-ai/sdk'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { awsCredentialSource } from '../../src/credentials/aws-credentials.ts'
import { sigV4Signer } from '../../src/credentials/aws-signer.ts'
import { GatewayError } from '../../src/errors/gateway-error.ts'
import { auditAdmin } from '../helpers/audit-admin.ts'
import { type RunningGateway, startGateway, writeGatewayYaml } from '../helpers/gateway.ts'
import { ANTHROPIC_TEXT, type MockAnthropic, startMockAnthropic } from '../helpers/mock-anthropic-upstream.ts'
import { CONVERSE_USAGE, type MockBedrock, startMockBedrock } from '../helpers/mock-bedrock-upstream.ts'
import { type MockGemini, startMockGemini } from '../helpers/mock-gemini-upstream.ts'
import { type MockGoogleAuth, serviceAccountKey, startMockGoogleAuth } from '../helpers/mock-google-auth.ts'
import { type MockVertex, startMockVertex } from '../helpers/mock-vertex-upstream.ts'

const MASTER = 'master-key-for-passthrough-0123456789'
const AWS = { id: 'AKIAPASSTHROUGH', secret: 'passthrough/aws/secret' }
/** What the raw upstream answers: whitespace and key order no serializer would keep. */
const RAW_JSON =
  '{ "id":"chatcmpl-raw" ,  "object":"chat.completion","model":"gpt-4o",\n "choices":[{"index":0,"message":{"role":"assistant","content":"raw \\u00e9 🙂"},"finish_reason":"stop"}],\n "usage":{"prompt_tokens":11,"completion_tokens":7,"total_tokens":18}}  \n'
const RAW_STREAM = [
  'data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}\n\n',
  ': an upstream comment\n\n',
  'data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hé"}}]}\r\n\r\n',
  'data: {"id":"c1","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}\n\n',
  'data: [DONE]\n\n',
]

interface RawRequest {
  method: string
  path: string
  headers: Record<string, string>
  body: Uint8Array
}

let raw: { url: string; requests: RawRequest[]; stop(): void }
let anthropicMock: MockAnthropic
let gemini: MockGemini
let bedrock: MockBedrock
let google: MockGoogleAuth
let vertex: MockVertex
let gw: RunningGateway

function startRawUpstream() {
  const requests: RawRequest[] = []
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    idleTimeout: 0,
    async fetch(req) {
      const url = new URL(req.url)
      requests.push({ method: req.method, path: `${url.pathname}${url.search}`, headers: Object.fromEntries(req.headers), body: new Uint8Array(await req.arrayBuffer()) })
      if (req.headers.get('authorization') !== 'Bearer sk-raw-provider') return Response.json({ error: { message: 'bad key' } }, { status: 401 })
      const stream = url.pathname.endsWith('/chat/completions') && new TextDecoder().decode(requests.at(-1)!.body).includes('"stream":true')
      if (!stream) return new Response(RAW_JSON, { headers: { 'content-type': 'application/json', 'x-request-id': 'req_raw_1', 'openai-processing-ms': '12' } })
      let i = 0
      return new Response(
        new ReadableStream({
          async pull(controller) {
            if (i >= RAW_STREAM.length) return controller.close()
            // A pause longer than the gateway's keep-alive interval: the pass-through must not fill it.
            if (i === 2) await Bun.sleep(1_300)
            controller.enqueue(new TextEncoder().encode(RAW_STREAM[i++]))
          },
        }),
        { headers: { 'content-type': 'text/event-stream' } },
      )
    },
  })
  return { url: `http://127.0.0.1:${server.port}/v1`, requests, stop: () => server.stop(true) }
}

beforeAll(async () => {
  raw = startRawUpstream()
  anthropicMock = startMockAnthropic('sk-ant-passthrough')
  gemini = startMockGemini('gm-passthrough')
  bedrock = startMockBedrock({ region: 'us-east-1', service: 'bedrock', keys: { [AWS.id]: { secret: AWS.secret } } })
  google = startMockGoogleAuth()
  const key = await serviceAccountKey(google.tokenUri)
  google.serviceAccount(key.file.client_email!, key.publicKey, key.file.private_key_id!)
  const keyFile = join(mkdtempSync(join(tmpdir(), 'passthrough-')), 'sa.json')
  writeFileSync(keyFile, JSON.stringify(key.file))
  vertex = startMockVertex({ project: 'acme-prod', location: 'us-east5', accepts: google.accepts })
  gw = await startGateway({
    // Limits and budgets are the `budget` feature's, usage the `usage` feature's.
    GATEWAY_CONFIG: writeGatewayYaml('workflows:\n  - name: default\n    features: { budget: true, usage: true }\n'),
    GATEWAY_MASTER_KEY: MASTER,
    SSE_KEEPALIVE_SECONDS: '1',
    OPENAI_API_KEY: 'sk-raw-provider',
    OPENAI_BASE_URL: raw.url,
    OPENAI_MODELS: 'gpt-4o',
    ANTHROPIC_API_KEY: 'sk-ant-passthrough',
    ANTHROPIC_BASE_URL: anthropicMock.url,
    GEMINI_API_KEY: 'gm-passthrough',
    GEMINI_BASE_URL: gemini.url,
    BEDROCK_BASE_URL: bedrock.url,
    BEDROCK_MODELS: 'amazon.nova-pro-v1:0',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: AWS.id,
    AWS_SECRET_ACCESS_KEY: AWS.secret,
    VERTEX_BASE_URL: vertex.url,
    VERTEX_PROJECT: 'acme-prod',
    VERTEX_LOCATION: 'us-east5',
    GOOGLE_APPLICATION_CREDENTIALS: keyFile,
  })
})
afterAll(async () => {
  await gw.stop()
  for (const m of [raw, anthropicMock, gemini, bedrock, vertex, google]) m.stop()
})

const admin = (path: string, body?: unknown) =>
  fetch(`${gw.url}/admin${path}`, {
    method: body ? 'POST' : 'GET',
    headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json' },
    body: body ? JSON.stringify(body) : undefined,
  })
async function managedKey(fields: Record<string, unknown>): Promise<{ id: string; key: string }> {
  const res = await admin('/keys', fields)
  expect(res.status).toBe(201)
  return (await res.json()) as { id: string; key: string }
}
const post = (path: string, body: string, headers: Record<string, string> = {}, key = MASTER) =>
  fetch(`${gw.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers }, body })

describe('bytes unchanged both ways but the credential', () => {
  test("the request's bytes reach the provider as sent, with the provider's key in place of the client's; the answer's bytes come back", async () => {
    const body = '{"model":"gpt-4o",  "messages":[{"role":"user","content":"h\\u00e9"}], "x_unknown":{"kept":true}}'
    const res = await post('/p/openai/v1/chat/completions', body, { 'x-gateway-user-path': '/team', cookie: 'session=1', 'x-custom': 'kept', 'openai-beta': 'assistants=v2' })
    expect(res.status).toBe(200)
    expect(await res.text()).toBe(RAW_JSON)
    expect(res.headers.get('x-upstream-request-id')).toBe('req_raw_1')
    expect(res.headers.get('openai-processing-ms')).toBe('12')
    const received = raw.requests.at(-1)!
    expect(new TextDecoder().decode(received.body)).toBe(body)
    expect(received.path).toBe('/v1/chat/completions')
    expect(received.headers).toMatchObject({ authorization: 'Bearer sk-raw-provider', 'x-custom': 'kept', 'openai-beta': 'assistants=v2', 'content-type': 'application/json' })
    expect(received.headers.cookie).toBeUndefined()
    expect(received.headers['x-gateway-user-path']).toBeUndefined()
    expect(JSON.stringify(received.headers)).not.toContain(MASTER)
  })

  test('an SSE answer passes byte for byte, comments and CRLF included, with no keep-alive in a quiet spell', async () => {
    const res = await post('/p/openai/v1/chat/completions', '{"model":"gpt-4o","stream":true,"messages":[{"role":"user","content":"hi"}]}')
    expect(res.headers.get('content-type')).toBe('text/event-stream')
    expect(await res.text()).toBe(RAW_STREAM.join(''))
  })

  test("Anthropic's answer, JSON and stream, is byte for byte what the provider sends directly; usage and cost in the audit entry", async () => {
    const request = { model: 'claude-sonnet-4-5', max_tokens: 100, messages: [{ role: 'user' as const, content: 'Hi' }] }
    const direct = async (stream: boolean) =>
      (
        await fetch(`${anthropicMock.url}/messages`, {
          method: 'POST',
          headers: { 'x-api-key': 'sk-ant-passthrough', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
          body: JSON.stringify({ ...request, stream }),
        })
      ).text()
    for (const stream of [false, true]) {
      const res = await post('/p/anthropic/v1/messages', JSON.stringify({ ...request, stream }), { 'anthropic-version': '2023-06-01' })
      expect(await res.text()).toBe(await direct(stream))
      const entry = await auditAdmin(gw.url, MASTER).entryFor(res.headers.get('x-request-id')!)
      expect(entry).toMatchObject({ status_code: 200, resolved_model: 'anthropic/claude-sonnet-4-5', path: '/p/anthropic/v1/messages', stream })
      expect(entry.usage).toMatchObject({ input_tokens: 125, output_tokens: 12, cached_input_tokens: 100, cache_write_input_tokens: 5 })
      expect(entry.usage!.cost_usd).toBeCloseTo((20 * 3 + 100 * 0.3 + 5 * 3.75 + 12 * 15) / 1e6, 9)
    }
    // The official SDK works pointed at the pass-through, with a gateway key as its API key.
    const sdk = new Anthropic({ apiKey: MASTER, baseURL: `${gw.url}/p/anthropic`, maxRetries: 0 })
    const message = await sdk.messages.create({ ...request, model: 'claude-sonnet-4-5' })
    expect(message.content[0]).toMatchObject({ type: 'text', text: ANTHROPIC_TEXT })
  })

  test("Bedrock's binary event stream passes byte for byte; the gateway's SigV4 is what the mock verifies; usage from its metadata", async () => {
    const path = '/model/amazon.nova-pro-v1%3A0/converse-stream'
    const body = '{"messages":[{"role":"user","content":[{"text":"Hi"}]}]}'
    const res = await post(`/p/bedrock${path}`, body, { accept: 'application/vnd.amazon.eventstream' })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/vnd.amazon.eventstream')
    const viaGateway = new Uint8Array(await res.arrayBuffer())
    expect(bedrock.refusedSignatures).toBe(0)
    // The same request signed by the test itself, straight to the mock.
    const sign = sigV4Signer({
      service: 'bedrock',
      region: 'us-east-1',
      credentials: awsCredentialSource('test', { region: 'us-east-1', accessKeyId: AWS.id, secretAccessKey: AWS.secret }),
    })
    const headers = await sign({ method: 'POST', url: `${bedrock.url}${path}`, headers: { 'content-type': 'application/json' }, body })
    if (headers instanceof GatewayError) throw headers
    const direct = new Uint8Array(await (await fetch(`${bedrock.url}${path}`, { method: 'POST', headers, body })).arrayBuffer())
    expect(Buffer.from(viaGateway).equals(Buffer.from(direct))).toBe(true)
    const entry = await auditAdmin(gw.url, MASTER).entryFor(res.headers.get('x-request-id')!)
    expect(entry.usage).toMatchObject({ input_tokens: CONVERSE_USAGE.inputTokens + 105, output_tokens: CONVERSE_USAGE.outputTokens })
  })

  test('Gemini with the key in x-goog-api-key, Vertex AI with a bearer token; a project that is not the instance’s is refused', async () => {
    const generate = '{"contents":[{"role":"user","parts":[{"text":"Hi"}]}]}'
    const g = await fetch(`${gw.url}/p/gemini/v1beta/models/gemini-2.5-flash:generateContent`, {
      method: 'POST',
      headers: { 'x-api-key': MASTER, 'content-type': 'application/json' },
      body: generate,
    })
    expect(g.status).toBe(200)
    expect(gemini.requests.at(-1)!.headers['x-goog-api-key']).toBe('gm-passthrough')
    const entry = await auditAdmin(gw.url, MASTER).entryFor(g.headers.get('x-request-id')!)
    expect(entry.usage).toMatchObject({ input_tokens: 293, output_tokens: 130, cached_input_tokens: 200 })
    const v = await post('/p/vertex/v1/projects/acme-prod/locations/us-east5/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse', generate)
    expect(v.status).toBe(200)
    expect(await v.text()).toContain('data: ')
    expect(vertex.requests.at(-1)!.headers.authorization).toMatch(/^Bearer ya29\./)
    const other = await post('/p/vertex/v1/projects/other-project/locations/us-east5/publishers/google/models/gemini-2.5-flash:generateContent', generate)
    expect(other.status).toBe(403)
    expect(((await other.json()) as any).error.code).toBe('passthrough_path_not_allowed')
  })

  test("the provider's own error is passed through as it came, and is the request's error in the audit entry", async () => {
    const res = await post('/p/anthropic/v1/messages', JSON.stringify({ model: 'rate-limited', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] }), {
      'anthropic-version': '2023-06-01',
    })
    expect(res.status).toBe(429)
    expect(res.headers.get('retry-after')).toBe('7')
    expect(((await res.json()) as any).error.type).toBe('rate_limit_error')
    const entry = await auditAdmin(gw.url, MASTER).entryFor(res.headers.get('x-request-id')!)
    expect(entry).toMatchObject({ status_code: 429, data: { error_code: 'upstream_http_429' } })
  })
})

describe('still governed', () => {
  test('deny by default: files, fine-tuning, batches, models, organization APIs and unknown providers are refused, and audited', async () => {
    const refused: [string, string, number, string][] = [
      ['POST', '/p/openai/v1/files', 403, 'passthrough_path_not_allowed'],
      ['POST', '/p/openai/v1/fine_tuning/jobs', 403, 'passthrough_path_not_allowed'],
      ['POST', '/p/openai/v1/batches', 403, 'passthrough_path_not_allowed'],
      ['GET', '/p/anthropic/v1/organizations/me', 403, 'passthrough_path_not_allowed'],
      ['POST', '/p/openai/v1/../v1/files', 403, 'passthrough_path_not_allowed'],
      ['POST', '/p/openai/v1/chat/completions/..%2f..%2ffiles', 403, 'passthrough_path_not_allowed'],
      ['GET', '/p/openai/v1/chat/completions', 400, 'method_not_allowed'],
      ['POST', '/p/nobody/v1/chat/completions', 404, 'provider_not_found'],
    ]
    const before = raw.requests.length
    for (const [method, path, status, code] of refused) {
      const res = await fetch(`${gw.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json' },
        body: method === 'POST' ? '{"model":"gpt-4o"}' : undefined,
      })
      expect([path, res.status, ((await res.json()) as any).error.code]).toEqual([path, status, code])
      await auditAdmin(gw.url, MASTER).entryFor(res.headers.get('x-request-id')!)
    }
    expect(raw.requests.length).toBe(before)
    expect((await fetch(`${gw.url}/p/openai/v1/chat/completions`, { method: 'POST', body: '{"model":"gpt-4o"}' })).status).toBe(401)
  })

  test("a managed key's model access holds for the model in the body or the path", async () => {
    const key = await managedKey({ name: 'anthropic only', allowed_models: ['anthropic/*'] })
    const body = '{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}'
    const openai = await post('/p/openai/v1/chat/completions', body, {}, key.key)
    expect([openai.status, ((await openai.json()) as any).error.code]).toEqual([403, 'model_not_allowed'])
    const bedrockPath = await post('/p/bedrock/model/amazon.nova-pro-v1%3A0/converse', '{"messages":[{"role":"user","content":[{"text":"Hi"}]}]}', {}, key.key)
    expect(bedrockPath.status).toBe(403)
    const allowed = await post(
      '/p/anthropic/v1/messages',
      JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] }),
      { 'anthropic-version': '2023-06-01' },
      key.key,
    )
    expect(allowed.status).toBe(200)
  })

  test("the key's rate limit and budget count pass-through requests and their cost", async () => {
    const key = await managedKey({ name: 'one a minute' })
    expect((await admin('/rate-limits', { scope: { key_id: key.id }, requests_per_minute: 1 })).status).toBe(201)
    const body = '{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}'
    expect((await post('/p/openai/v1/chat/completions', body, {}, key.key)).status).toBe(200)
    const second = await post('/p/openai/v1/chat/completions', body, {}, key.key)
    expect([second.status, ((await second.json()) as any).error.type]).toEqual([429, 'rate_limit_error'])

    // The budget reserves the request's most (prompt + max_tokens at gpt-4o's price) and settles at the cost read
    // from the answer (11 in, 7 out: $0.0000975); the second request no longer fits.
    const spender = await managedKey({ name: 'small budget' })
    expect((await admin('/budgets', { scope: { key_id: spender.id }, window: 'day', limit_usd: 0.00015 })).status).toBe(201)
    const capped = '{"model":"gpt-4o","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}'
    const spent = await post('/p/openai/v1/chat/completions', capped, {}, spender.key)
    expect([spent.status, await spent.text()]).toEqual([200, RAW_JSON])
    const budgetOf = async () =>
      ((await (await admin('/budgets')).json()) as { data: { scope: { key_id?: string }; spent_usd: number }[] }).data.find((b) => b.scope.key_id === spender.id)?.spent_usd ?? 0
    expect(await auditAdmin(gw.url, MASTER).eventually(budgetOf, (usd) => usd > 0)).toBeCloseTo(0.0000975, 6)
    const refused = await post('/p/openai/v1/chat/completions', capped, {}, spender.key)
    expect([refused.status, ((await refused.json()) as any).error.code]).toEqual([429, 'budget_exceeded'])
  })
})

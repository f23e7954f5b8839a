/**
 * Bedrock and Vertex AI through the whole gateway, configured from the environment as their users would: the
 * `<provider>/<model>` selectors listed, every ingress API (chat, Responses translated, Anthropic Messages native
 * for Claude and translated otherwise) with the official SDKs, a failover chain across the two clouds, usage and
 * cost in the audit entry, and a credential the cloud refuses as a clear, audited error. The mocks verify what the
 * clouds verify (SigV4 recomputed; the service account's JWT at the key file's token_uri, then the bearer token).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI, { toFile } from 'openai'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { auditAdmin } from '../helpers/audit-admin.ts'
import { type RunningGateway, startGateway, writeGatewayYaml } from '../helpers/gateway.ts'
import { ANTHROPIC_TEXT } from '../helpers/mock-anthropic-upstream.ts'
import { BEDROCK_TEXT, type MockBedrock, startMockBedrock } from '../helpers/mock-bedrock-upstream.ts'
import { GEMINI_IMAGE_USAGE, GEMINI_TEXT, GOOGLE_IMAGE, geminiEmbeddingValues } from '../helpers/mock-gemini-upstream.ts'
import { type MockGoogleAuth, serviceAccountKey, startMockGoogleAuth } from '../helpers/mock-google-auth.ts'
import { type MockVertex, startMockVertex } from '../helpers/mock-vertex-upstream.ts'

const MASTER = 'master-key-for-cloud-tests-0123456789'
const KEY = { id: 'AKIACLOUDSE2E', secret: 'clouds/e2e/secret/access/key' }
const NOVA = 'amazon.nova-pro-v1:0'
const CLAUDE_BEDROCK = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0'
const TITAN_EMBED = 'amazon.titan-embed-text-v2:0'
const COHERE_EMBED = 'cohere.embed-english-v3'
let bedrock: MockBedrock
let google: MockGoogleAuth
let vertex: MockVertex
let gw: RunningGateway
let openai: OpenAI
let anthropic: Anthropic
let keyFile: string

beforeAll(async () => {
  bedrock = startMockBedrock({ region: 'eu-central-1', service: 'bedrock', keys: { [KEY.id]: { secret: KEY.secret } } })
  google = startMockGoogleAuth()
  const key = await serviceAccountKey(google.tokenUri)
  google.serviceAccount(key.file.client_email!, key.publicKey, key.file.private_key_id!)
  keyFile = join(mkdtempSync(join(tmpdir(), 'clouds-e2e-')), 'sa.json')
  writeFileSync(keyFile, JSON.stringify(key.file))
  vertex = startMockVertex({ project: 'acme-prod', location: 'us-east5', accepts: google.accepts })
  const config = writeGatewayYaml(`
virtual_models:
  - source: cloud-chain
    target: bedrock/amazon.nova-throttled-v1:0
workflows:
  - name: default
    features: { failover: true }
    plugins:
      failover:
        max_retries: 0
        initial_backoff_ms: 1
        targets:
          bedrock/amazon.nova-throttled-v1:0: [vertex/gemini-2.5-flash]
`)
  gw = await startGateway({
    GATEWAY_CONFIG: config,
    GATEWAY_MASTER_KEY: MASTER,
    BEDROCK_BASE_URL: bedrock.url,
    BEDROCK_MODELS: `${NOVA},${CLAUDE_BEDROCK},${TITAN_EMBED},${COHERE_EMBED}`,
    AWS_REGION: 'eu-central-1',
    AWS_ACCESS_KEY_ID: KEY.id,
    AWS_SECRET_ACCESS_KEY: KEY.secret,
    VERTEX_BASE_URL: vertex.url,
    VERTEX_PROJECT: 'acme-prod',
    VERTEX_LOCATION: 'us-east5',
    VERTEX_MODELS: 'gemini-2.5-flash,claude-sonnet-4-5@20250929,text-embedding-005,gemini-embedding-001,imagen-4.0-fast-generate-001,gemini-2.5-flash-image',
    GOOGLE_APPLICATION_CREDENTIALS: keyFile,
  })
  openai = new OpenAI({ apiKey: MASTER, baseURL: gw.baseURL, maxRetries: 0 })
  anthropic = new Anthropic({ apiKey: MASTER, baseURL: gw.url, maxRetries: 0 })
})
afterAll(async () => {
  await gw.stop()
  bedrock.stop()
  vertex.stop()
  google.stop()
})

describe('Bedrock and Vertex AI behind the gateway', () => {
  test('/v1/models lists both clouds as <provider>/<model> selectors', async () => {
    const ids = (await openai.models.list()).data.map((m) => m.id)
    expect(ids).toEqual(expect.arrayContaining([`bedrock/${NOVA}`, `bedrock/${CLAUDE_BEDROCK}`, 'vertex/gemini-2.5-flash', 'vertex/claude-sonnet-4-5@20250929']))
  })

  test('chat completions, streamed and not, on each cloud and model family', async () => {
    const cases: [string, string][] = [
      [`bedrock/${NOVA}`, BEDROCK_TEXT],
      [`bedrock/${CLAUDE_BEDROCK}`, BEDROCK_TEXT],
      ['vertex/gemini-2.5-flash', GEMINI_TEXT],
      ['vertex/claude-sonnet-4-5@20250929', ANTHROPIC_TEXT],
    ]
    for (const [model, text] of cases) {
      const answer = await openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'Hi' }] })
      expect(answer.choices[0]!.message.content).toBe(text)
      const stream = await openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'Hi' }], stream: true, stream_options: { include_usage: true } })
      let streamed = ''
      let usage: OpenAI.CompletionUsage | undefined | null
      for await (const chunk of stream) {
        streamed += chunk.choices[0]?.delta?.content ?? ''
        usage ??= chunk.usage
      }
      expect(streamed).toBe(text)
      expect(usage?.prompt_tokens).toBeGreaterThan(0)
    }
    expect(bedrock.refusedSignatures).toBe(0)
  })

  test('embeddings on Bedrock: Titan one input a signed InvokeModel call, Cohere all in one; their token counts as the usage', async () => {
    const texts = ['first', 'second 🙂']
    const before = bedrock.requests.length
    const titan = await openai.embeddings.create({ model: `bedrock/${TITAN_EMBED}`, input: texts, dimensions: 256, encoding_format: 'float' })
    const calls = bedrock.requests.slice(before)
    expect(calls.map((r) => [r.path, r.body])).toEqual(texts.map((inputText) => ['/model/amazon.titan-embed-text-v2%3A0/invoke', { inputText, dimensions: 256 }]))
    expect(titan.data.map((d) => d.embedding)).toEqual(texts.map((text) => geminiEmbeddingValues(text, 256)))
    // The mock counts a token per character: the usage is Bedrock's inputTextTokenCount, summed.
    expect(titan.usage.prompt_tokens).toBe(Array.from(texts.join('')).length)

    const cohere = await openai.embeddings.create({ model: `bedrock/${COHERE_EMBED}`, input: texts })
    expect(bedrock.requests.at(-1)).toMatchObject({ path: '/model/cohere.embed-english-v3/invoke', body: { texts, input_type: 'search_document' } })
    // The SDK asked for base64 and decoded it: the float32 values of Cohere's numbers.
    expect(cohere.data.map((d) => d.embedding)).toEqual(texts.map((text) => Array.from(Float32Array.from(geminiEmbeddingValues(text, 1024)))))
    expect(cohere.usage.prompt_tokens).toBe(Array.from(texts.join('')).length)
    const queried = await openai.embeddings.create({ model: `bedrock/${COHERE_EMBED}`, input: 'query', input_type: 'search_query' } as never)
    expect(bedrock.requests.at(-1)!.body).toEqual({ texts: ['query'], input_type: 'search_query' })
    expect(queried.data).toHaveLength(1)

    const refused = await openai.embeddings.create({ model: `bedrock/${TITAN_EMBED}`, input: 'x', dimensions: 7 }).catch((e) => e)
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError)
    expect(refused.message).toContain('7 is not a valid enum value')
    const nova = await openai.embeddings.create({ model: `bedrock/${NOVA}`, input: 'x' }).catch((e) => e)
    expect(nova).toBeInstanceOf(OpenAI.BadRequestError)
    expect(nova.error).toMatchObject({ code: 'unsupported_endpoint' })
    expect(bedrock.refusedSignatures).toBe(0)
  })

  test("embeddings on Vertex AI: Google's embedding models through :predict, dimensions as outputDimensionality, Vertex's token counts", async () => {
    const texts = ['first', 'second 🙂']
    const floats = await openai.embeddings.create({ model: 'vertex/text-embedding-005', input: texts, dimensions: 4, encoding_format: 'float' })
    const seen = vertex.requests.at(-1)!
    expect(seen.path).toBe('/v1/projects/acme-prod/locations/us-east5/publishers/google/models/text-embedding-005:predict')
    expect(seen.body).toEqual({ instances: texts.map((content) => ({ content })), parameters: { outputDimensionality: 4 } })
    expect(floats.data.map((d) => d.embedding)).toEqual(texts.map((text) => geminiEmbeddingValues(text, 4)))
    // The mock counts a token per character, as no tokenizer would: the usage is Vertex's, not the gateway's count.
    expect(floats.usage).toEqual({ prompt_tokens: Array.from(texts.join('')).length, total_tokens: Array.from(texts.join('')).length })
    // The SDK's default asks for base64 and decodes the float32 values.
    const decoded = await openai.embeddings.create({ model: 'vertex/gemini-embedding-001', input: 'solo' })
    expect(decoded.data[0]!.embedding).toEqual(Array.from(Float32Array.from(geminiEmbeddingValues('solo'))))
    // One instance a request for gemini-embedding-001: Vertex's refusal is passed on.
    const several = await openai.embeddings.create({ model: 'vertex/gemini-embedding-001', input: ['a', 'b'] }).catch((e) => e)
    expect(several).toBeInstanceOf(OpenAI.BadRequestError)
    expect(several.message).toContain('single instance per request')
    const claude = await openai.embeddings.create({ model: 'vertex/claude-sonnet-4-5@20250929', input: 'x' }).catch((e) => e)
    expect(claude).toBeInstanceOf(OpenAI.BadRequestError)
    expect(claude.error).toMatchObject({ code: 'unsupported_endpoint' })
  })

  test('images on Vertex AI: Imagen through :predict, the Gemini image model through generateContent (edits too), Claude refused', async () => {
    const imagen = await openai.images.generate({ model: 'vertex/imagen-4.0-fast-generate-001', prompt: 'a lighthouse', n: 2, size: '1024x1792' })
    expect(vertex.requests.at(-1)!.path).toBe('/v1/projects/acme-prod/locations/us-east5/publishers/google/models/imagen-4.0-fast-generate-001:predict')
    expect(vertex.requests.at(-1)!.body).toEqual({ instances: [{ prompt: 'a lighthouse' }], parameters: { sampleCount: 2, aspectRatio: '9:16' } })
    expect(imagen.data!.map((d) => Buffer.from(d.b64_json!, 'base64'))).toEqual([Buffer.from(GOOGLE_IMAGE), Buffer.from(GOOGLE_IMAGE)])
    const image = new Uint8Array(256).fill(5)
    image.set([0x89, 0x50, 0x4e, 0x47])
    const edited = await openai.images.edit({ model: 'vertex/gemini-2.5-flash-image', prompt: 'a hat', image: await toFile(image, 'cat.png', { type: 'image/png' }) })
    expect(vertex.requests.at(-1)!.path).toBe('/v1/projects/acme-prod/locations/us-east5/publishers/google/models/gemini-2.5-flash-image:generateContent')
    expect(vertex.requests.at(-1)!.body.contents[0].parts).toEqual([{ text: 'a hat' }, { inlineData: { mimeType: 'image/png', data: Buffer.from(image).toString('base64') } }])
    expect(edited.usage).toMatchObject({ input_tokens: GEMINI_IMAGE_USAGE.promptTokenCount, output_tokens: GEMINI_IMAGE_USAGE.candidatesTokenCount })
    const claude = await openai.images.generate({ model: 'vertex/claude-sonnet-4-5@20250929', prompt: 'x' }).catch((e) => e)
    expect(claude).toBeInstanceOf(OpenAI.BadRequestError)
    expect(claude.error).toMatchObject({ code: 'unsupported_endpoint', param: 'model' })
  })

  test('the Responses API, translated over chat, on Bedrock and Vertex AI', async () => {
    for (const [model, text] of [
      [`bedrock/${NOVA}`, BEDROCK_TEXT],
      ['vertex/gemini-2.5-flash', GEMINI_TEXT],
    ] as const) {
      const response = await openai.responses.create({ model, input: 'Hi' })
      expect(response.output_text).toBe(text)
    }
  })

  test('Anthropic Messages: Claude on Bedrock natively (thinking signatures intact), other models translated', async () => {
    const thinking = anthropic.messages.stream({
      model: 'bedrock/us.anthropic.claude-thinking-v1:0',
      max_tokens: 2000,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      messages: [{ role: 'user', content: 'Hi' }],
    })
    const message = await thinking.finalMessage()
    expect(message.content[0]).toEqual({ type: 'thinking', thinking: 'The user greets me.', signature: 'sig_mock' })
    expect(bedrock.requests.at(-1)!.path).toBe('/model/us.anthropic.claude-thinking-v1%3A0/invoke-with-response-stream')

    const vertexClaude = await anthropic.messages.create({ model: 'vertex/claude-thinking@20250101', max_tokens: 2000, messages: [{ role: 'user', content: 'Hi' }] })
    expect(vertexClaude.content[0]).toMatchObject({ type: 'thinking', signature: 'sig_mock' })

    const nova = await anthropic.messages.create({ model: `bedrock/${NOVA}`, max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] })
    expect(nova.content.map((b) => (b.type === 'text' ? b.text : b.type))).toEqual([BEDROCK_TEXT])
    expect(bedrock.requests.at(-1)!.path).toBe('/model/amazon.nova-pro-v1%3A0/converse')
  })

  test('a failover chain across the clouds: Bedrock throttles, Vertex AI answers; both attempts in the audit entry', async () => {
    const { data, response } = await openai.chat.completions.create({ model: 'cloud-chain', messages: [{ role: 'user', content: 'Hi' }] }).withResponse()
    expect(data.choices[0]!.message.content).toBe(GEMINI_TEXT)
    const entry = await auditAdmin(gw.url, MASTER).entryFor(response.headers.get('x-request-id')!)
    expect(entry.data.attempts!.map((a) => [`${a.provider_name}/${a.model}`, a.status_code, a.error_code ?? null])).toEqual([
      ['bedrock/amazon.nova-throttled-v1:0', 429, 'ThrottlingException'],
      ['vertex/gemini-2.5-flash', 200, null],
    ])
  })

  test('usage and cost of a Bedrock Claude answer at the bundled price, cached tokens included', async () => {
    const { response } = await openai.chat.completions.create({ model: `bedrock/${CLAUDE_BEDROCK}`, messages: [{ role: 'user', content: 'Hi' }] }).withResponse()
    const entry = await auditAdmin(gw.url, MASTER).entryFor(response.headers.get('x-request-id')!)
    expect(entry.usage).toMatchObject({ input_tokens: 125, output_tokens: 12, cached_input_tokens: 100, cache_write_input_tokens: 5 })
    // Sonnet 4.5 on Bedrock: $3 in, $0.30 cached, $3.75 cache write, $15 out per million.
    expect(entry.usage!.cost_usd).toBeCloseTo((20 * 3 + 100 * 0.3 + 5 * 3.75 + 12 * 15) / 1e6, 9)
  })
})

describe('refused cloud credentials', () => {
  let bad: RunningGateway
  beforeAll(async () => {
    const key = await serviceAccountKey(google.tokenUri, 'unknown@acme-prod.iam.gserviceaccount.com')
    const unknownKey = join(mkdtempSync(join(tmpdir(), 'clouds-bad-')), 'sa.json')
    writeFileSync(unknownKey, JSON.stringify(key.file))
    bad = await startGateway({
      GATEWAY_MASTER_KEY: MASTER,
      BEDROCK_BASE_URL: bedrock.url,
      BEDROCK_MODELS: NOVA,
      AWS_REGION: 'eu-central-1',
      AWS_ACCESS_KEY_ID: KEY.id,
      AWS_SECRET_ACCESS_KEY: 'not-the-secret',
      VERTEX_BASE_URL: vertex.url,
      VERTEX_PROJECT: 'acme-prod',
      VERTEX_LOCATION: 'us-east5',
      VERTEX_MODELS: 'gemini-2.5-flash',
      GOOGLE_APPLICATION_CREDENTIALS: unknownKey,
    })
  })
  afterAll(() => bad.stop())

  test('a signature Bedrock refuses and a key Google refuses: 502 naming the problem, each audited, no secret in either', async () => {
    const client = new OpenAI({ apiKey: MASTER, baseURL: bad.baseURL, maxRetries: 0 })
    const failures: [string, string][] = [
      [`bedrock/${NOVA}`, 'InvalidSignatureException'],
      ['vertex/gemini-2.5-flash', 'google_credentials_refused'],
    ]
    for (const [model, code] of failures) {
      const error = (await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'Hi' }] }).then(
        () => undefined,
        (e: unknown) => e,
      )) as InstanceType<typeof OpenAI.APIError>
      expect(error).toBeInstanceOf(OpenAI.APIError)
      expect([error.status, (error.error as { code?: string }).code]).toEqual([502, code])
      expect(JSON.stringify(error.error)).not.toContain('not-the-secret')
      const entry = await auditAdmin(bad.url, MASTER).entryFor(error.headers!.get('x-request-id')!)
      expect(entry).toMatchObject({ status_code: 502, data: { error_code: code } })
      expect(JSON.stringify(entry)).not.toContain('not-the-secret')
    }
  })
})

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PROVIDER_TYPES } from '../../../src/config/provider-catalog.ts'
import { GatewayError } from '../../../src/errors/gateway-error.ts'
import { SseParser } from '../../../src/pipeline/sse.ts'
import type { AdapterCall, ProviderInstance } from '../../../src/providers/types.ts'
import { upstreamAuthFor } from '../../../src/providers/upstream-auth.ts'
import { ANTHROPIC_TEXT } from '../../../test/helpers/mock-anthropic-upstream.ts'
import { GEMINI_TEXT } from '../../../test/helpers/mock-gemini-upstream.ts'
import { type MockGoogleAuth, serviceAccountKey, startMockGoogleAuth } from '../../../test/helpers/mock-google-auth.ts'
import { type MockVertex, startMockVertex } from '../../../test/helpers/mock-vertex-upstream.ts'
import { answered, makeContext } from '../../../test/helpers/plugin-harness.ts'
import { tempDirs } from '../../../test/helpers/temp-dirs.ts'
import { vertexAdapter, vertexModelUrl } from './adapter.ts'

const tempDir = tempDirs('vertex-adapter-')

describe('Vertex AI URLs', () => {
  const provider = { baseUrl: 'https://europe-west4-aiplatform.googleapis.com/v1', project: 'acme-prod', location: 'europe-west4' } as ProviderInstance
  test('Gemini under publishers/google, Claude under publishers/anthropic; the model one encoded segment', () => {
    expect(String(vertexModelUrl(provider, 'gemini-2.5-pro', 'streamGenerateContent', true))).toBe(
      'https://europe-west4-aiplatform.googleapis.com/v1/projects/acme-prod/locations/europe-west4/publishers/google/models/gemini-2.5-pro:streamGenerateContent?alt=sse',
    )
    expect(String(vertexModelUrl(provider, 'claude-sonnet-4-5@20250929', 'rawPredict'))).toBe(
      'https://europe-west4-aiplatform.googleapis.com/v1/projects/acme-prod/locations/europe-west4/publishers/anthropic/models/claude-sonnet-4-5%4020250929:rawPredict',
    )
  })
})

describe('against the mock Vertex AI and Google token service', () => {
  let google: MockGoogleAuth
  let vertex: MockVertex
  let keyPath: string
  beforeAll(async () => {
    google = startMockGoogleAuth()
    const key = await serviceAccountKey(google.tokenUri)
    google.serviceAccount(key.file.client_email!, key.publicKey, key.file.private_key_id!)
    // Kept for the whole file (tempDirs removes its folders after each test); the run's folder goes at exit.
    keyPath = join(mkdtempSync(join(tmpdir(), 'vertex-key-')), 'sa.json')
    writeFileSync(keyPath, JSON.stringify(key.file))
    vertex = startMockVertex({ project: 'acme-prod', location: 'us-east5', accepts: google.accepts })
  })
  afterAll(() => {
    google.stop()
    vertex.stop()
  })

  const provider = (credentialsFile = keyPath): ProviderInstance => ({
    name: 'vertex',
    type: 'vertex',
    baseUrl: vertex.url,
    staticModels: ['gemini-2.5-flash', 'claude-sonnet-4-5@20250929'],
    nativeResponses: false,
    project: 'acme-prod',
    location: 'us-east5',
    auth: upstreamAuthFor('vertex', PROVIDER_TYPES.vertex, {
      type: 'vertex',
      models: [],
      project: 'acme-prod',
      location: 'us-east5',
      google: { credentials_file: credentialsFile },
    }),
  })
  const call = (
    model: string,
    body: Record<string, unknown>,
    p = provider(),
    endpoint: 'chat.completions' | 'messages' = 'chat.completions',
    headers: Record<string, string> = {},
  ): AdapterCall => ({
    provider: p,
    target: { providerName: 'vertex', providerType: 'vertex', model, selector: `vertex/${model}` },
    body: { ...body, model },
    ctx: makeContext({ body, endpoint, headers }),
    attemptKind: 'primary',
    limits: { ttfbMs: 5000, idleMs: 5000, maxResponseBytes: 1 << 20, secrets: [] },
  })

  test('Gemini: generateContent with a bearer token from the service account, translated as for the Gemini API', async () => {
    const res = answered(await vertexAdapter.chatCompletions(call('gemini-2.5-flash', { messages: [{ role: 'user', content: 'Hi' }] })))
    expect(((await res.json()) as any).choices[0].message.content).toBe(GEMINI_TEXT)
    const sent = vertex.requests.at(-1)!
    expect(sent.path).toBe('/v1/projects/acme-prod/locations/us-east5/publishers/google/models/gemini-2.5-flash:generateContent')
    expect(sent.headers.authorization).toMatch(/^Bearer ya29\.sa-/)
    expect(sent.headers['x-goog-api-key']).toBeUndefined()
  })

  test('Gemini streams (alt=sse) become chat chunks', async () => {
    const res = answered(await vertexAdapter.chatCompletions(call('gemini-2.5-flash', { messages: [{ role: 'user', content: 'Hi' }], stream: true })))
    const text = await res.text()
    expect(text).toContain('data: [DONE]')
    expect(vertex.requests.at(-1)!.search).toBe('?alt=sse')
  })

  test('Claude: chat as a rawPredict Messages request (no model, Vertex version), answered in chat format', async () => {
    const res = answered(await vertexAdapter.chatCompletions(call('claude-sonnet-4-5@20250929', { messages: [{ role: 'user', content: 'Hi' }], max_tokens: 100 })))
    expect(((await res.json()) as any).choices[0].message.content).toBe(ANTHROPIC_TEXT)
    const sent = vertex.requests.at(-1)!
    expect(sent.path).toBe('/v1/projects/acme-prod/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5%4020250929:rawPredict')
    expect(sent.body).toMatchObject({ anthropic_version: 'vertex-2023-10-16', max_tokens: 100 })
    expect(sent.body.model).toBeUndefined()
  })

  test('Claude streams through streamRawPredict', async () => {
    const res = answered(await vertexAdapter.chatCompletions(call('claude-sonnet-4-5@20250929', { messages: [{ role: 'user', content: 'Hi' }], stream: true })))
    expect(await res.text()).toContain('data: [DONE]')
    expect(vertex.requests.at(-1)!.path).toEndWith(':streamRawPredict')
  })

  test('/v1/messages for Claude is native: thinking blocks and signatures pass unchanged, betas as a header', async () => {
    const body = { messages: [{ role: 'user', content: 'Hi' }], max_tokens: 2000, thinking: { type: 'enabled', budget_tokens: 1024 }, stream: true }
    const res = answered(await vertexAdapter.messages!(call('claude-thinking@20250101', body, provider(), 'messages', { 'anthropic-beta': 'interleaved-thinking-2025-05-14' })))
    const events = new SseParser().push(new TextEncoder().encode(await res.text()))
    expect(events.find((e) => e.data.includes('signature_delta'))!.data).toContain('"signature":"sig_mock"')
    const sent = vertex.requests.at(-1)!
    expect(sent.headers['anthropic-beta']).toBe('interleaved-thinking-2025-05-14')
    expect(sent.body).toEqual({ anthropic_version: 'vertex-2023-10-16', ...body })
    expect(vertexAdapter.speaksNatively!('messages', provider(), 'gemini-2.5-pro')).toBe(false)
  })

  test('errors: Google-shaped platform errors and Anthropic-shaped model errors keep their meaning', async () => {
    expect(await vertexAdapter.chatCompletions(call('rate-limited', { messages: [{ role: 'user', content: 'Hi' }] }))).toMatchObject({ status: 429, code: 'RESOURCE_EXHAUSTED' })
    expect(await vertexAdapter.chatCompletions(call('claude-overloaded@1', { messages: [{ role: 'user', content: 'Hi' }] }))).toMatchObject({
      status: 503,
      code: 'overloaded_error',
    })
    const wrongProject = { ...provider(), project: 'other-proj' }
    expect(await vertexAdapter.chatCompletions(call('gemini-2.5-flash', { messages: [{ role: 'user', content: 'Hi' }] }, wrongProject))).toMatchObject({
      status: 502,
      code: 'PERMISSION_DENIED',
    })
  })

  test('a key file the token service refuses is google_credentials_refused in the attempt; Vertex is not called', async () => {
    const other = await serviceAccountKey(google.tokenUri, 'stranger@acme-prod.iam.gserviceaccount.com')
    const path = join(tempDir(), 'stranger.json')
    writeFileSync(path, JSON.stringify(other.file))
    const before = vertex.requests.length
    const c = call('gemini-2.5-flash', { messages: [{ role: 'user', content: 'Hi' }] }, provider(path))
    const result = await vertexAdapter.chatCompletions(c)
    expect(result).toBeInstanceOf(GatewayError)
    expect(result).toMatchObject({ status: 502, code: 'google_credentials_refused', provider: 'vertex' })
    expect(c.ctx.attempts.at(-1)).toMatchObject({ success: false, error_code: 'google_credentials_refused' })
    expect(vertex.requests.length).toBe(before)
    expect(await vertexAdapter.listModels(provider(path), AbortSignal.timeout(5000))).toMatchObject({ code: 'google_credentials_refused' })
  })

  test('the model list is the configured one', async () => {
    expect(await vertexAdapter.listModels(provider(), AbortSignal.timeout(5000))).toEqual(['gemini-2.5-flash', 'claude-sonnet-4-5@20250929'])
  })
})

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { PROVIDER_TYPES } from '../../../src/config/provider-catalog.ts'
import { GatewayError } from '../../../src/errors/gateway-error.ts'
import type { AdapterCall, ProviderInstance } from '../../../src/providers/types.ts'
import { upstreamAuthFor } from '../../../src/providers/upstream-auth.ts'
import { type MockEntra, startMockEntra } from '../../../test/helpers/mock-entra.ts'
import { answered, makeContext } from '../../../test/helpers/plugin-harness.ts'
import { azureOpenaiAdapter, azureUrl as deploymentUrl, dropEmptyChoiceChunks } from './adapter.ts'

const classic: ProviderInstance = { name: 'azure', type: 'azure', baseUrl: 'https://res.openai.azure.com/openai', apiKey: 'k', staticModels: [], nativeResponses: true }

test('classic resources address the deployment with an api-version; the v1 API does not', () => {
  const azureUrl = (...args: Parameters<typeof deploymentUrl>): string => deploymentUrl(...args)
  expect(azureUrl(classic, 'gpt 4o', 'chat/completions')).toBe('https://res.openai.azure.com/openai/deployments/gpt%204o/chat/completions?api-version=2024-10-21')
  expect(azureUrl({ ...classic, apiVersion: '2025-01-01' }, 'x', 'responses')).toBe('https://res.openai.azure.com/openai/responses?api-version=2025-01-01')
  expect(azureUrl({ ...classic, baseUrl: 'https://res.openai.azure.com/openai/v1' }, 'x', 'chat/completions')).toBe('https://res.openai.azure.com/openai/v1/chat/completions')
  expect(azureUrl(classic, 'instruct', 'completions')).toBe('https://res.openai.azure.com/openai/deployments/instruct/completions?api-version=2024-10-21')
  expect(azureUrl(classic, 'embed-small', 'embeddings')).toBe('https://res.openai.azure.com/openai/deployments/embed-small/embeddings?api-version=2024-10-21')
  expect(azureUrl({ ...classic, baseUrl: 'https://res.openai.azure.com/openai/v1' }, 'x', 'embeddings')).toBe('https://res.openai.azure.com/openai/v1/embeddings')
  expect(azureUrl({ ...classic, baseUrl: 'https://res.services.ai.azure.com/models' }, 'x', 'embeddings')).toBe(
    'https://res.services.ai.azure.com/models/embeddings?api-version=2024-05-01-preview',
  )
})

test('the empty-choices prompt-filter chunk is dropped; usage chunks and [DONE] stay', async () => {
  const upstream = [
    'data: {"id":"","object":"","created":0,"model":"","choices":[],"prompt_filter_results":[]}\n\n',
    'data: {"id":"c","choices":[{"index":0,"delta":{"content":"hi"}}]}\n\n',
    'data: {"id":"c","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}\n\n',
    'data: [DONE]\n\n',
  ].join('')
  const out = await new Response(dropEmptyChoiceChunks(new Response(upstream).body!)).text()
  expect(out).not.toContain('prompt_filter_results')
  expect(out).toContain('"content":"hi"')
  expect(out).toContain('"usage"')
  expect(out).toEndWith('data: [DONE]\n\n')
})

describe('Entra ID and the Foundry models endpoint', () => {
  const TENANT = 'aaaabbbb-0000-cccc-1111-dddd2222eeee'
  const CLIENT = '00001111-aaaa-2222-bbbb-3333cccc4444'
  const SECRET = 'Q~entra.adapter.secret'
  let entra: MockEntra
  let azure: ReturnType<typeof Bun.serve>
  const seen: { path: string; auth: string | null; apiKey: string | null; body: any }[] = []

  beforeAll(() => {
    entra = startMockEntra({ tenantId: TENANT, clientId: CLIENT, clientSecret: SECRET })
    // Azure answers 401 to a bearer token its tenant did not issue, as the real service does.
    azure = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      async fetch(req) {
        const url = new URL(req.url)
        const auth = req.headers.get('authorization')
        seen.push({ path: `${url.pathname}${url.search}`, auth, apiKey: req.headers.get('api-key'), body: await req.json().catch(() => undefined) })
        if (!auth || !entra.accepts(auth.replace(/^Bearer /, '')))
          return Response.json({ error: { code: '401', message: 'Access denied due to invalid subscription key or wrong API endpoint.' } }, { status: 401 })
        return Response.json({
          id: 'chatcmpl-az',
          object: 'chat.completion',
          created: 1,
          model: 'gpt-4o',
          choices: [{ index: 0, message: { role: 'assistant', content: 'from azure' }, finish_reason: 'stop' }],
        })
      },
    })
  })
  afterAll(() => {
    entra.stop()
    azure.stop(true)
  })

  const instance = (baseUrl: string, secret = SECRET): ProviderInstance => {
    const entraBlock = { tenant_id: TENANT, client_id: CLIENT, client_secret: secret, authority_host: entra.url }
    return {
      name: 'azure',
      type: 'azure',
      baseUrl,
      staticModels: ['gpt-4o'],
      nativeResponses: true,
      auth: upstreamAuthFor('azure', PROVIDER_TYPES.azure, { type: 'azure', models: [], entra: entraBlock }),
    }
  }
  const call = (provider: ProviderInstance): AdapterCall => ({
    provider,
    target: { providerName: 'azure', providerType: 'azure', model: 'gpt-4o', selector: 'azure/gpt-4o' },
    body: { model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] },
    ctx: makeContext({ body: { model: 'gpt-4o', messages: [] } }),
    attemptKind: 'primary',
    limits: { ttfbMs: 5000, idleMs: 5000, maxResponseBytes: 1 << 20, secrets: [] },
  })

  test('an Entra ID token instead of api-key, fetched once for several calls', async () => {
    const provider = instance(`http://127.0.0.1:${azure.port}/openai`)
    for (let i = 0; i < 2; i++) {
      const res = answered(await azureOpenaiAdapter.chatCompletions(call(provider)))
      expect(((await res.json()) as any).choices[0].message.content).toBe('from azure')
    }
    expect(seen.at(-1)).toMatchObject({ path: '/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21', apiKey: null, auth: expect.stringMatching(/^Bearer eyJ/) })
    expect(entra.calls.token).toBe(1)
  })

  test('the Foundry models endpoint: /models/chat/completions with its api-version and the model in the body; chat for Responses', async () => {
    const provider = instance(`http://127.0.0.1:${azure.port}/models`)
    answered(await azureOpenaiAdapter.chatCompletions(call(provider)))
    expect(seen.at(-1)).toMatchObject({ path: '/models/chat/completions?api-version=2024-05-01-preview', body: { model: 'gpt-4o' } })
    expect(azureOpenaiAdapter.speaksNatively!('responses', provider, 'gpt-4o')).toBe(false)
    expect(azureOpenaiAdapter.speaksNatively!('responses', classic, 'gpt-4o')).toBe(true)
    expect(azureOpenaiAdapter.speaksNatively!('completions', provider, 'gpt-4o')).toBe(false)
    expect(azureOpenaiAdapter.speaksNatively!('completions', classic, 'gpt-4o')).toBe(true)
    expect(await azureOpenaiAdapter.listModels(provider, AbortSignal.timeout(1000))).toEqual(['gpt-4o'])
  })

  test('a refused client secret is the attempt error azure_credentials_refused (502); nothing reaches Azure', async () => {
    const before = seen.length
    const c = call(instance(`http://127.0.0.1:${azure.port}/openai`, 'Q~wrong'))
    const result = await azureOpenaiAdapter.chatCompletions(c)
    expect(result).toBeInstanceOf(GatewayError)
    expect(result).toMatchObject({ status: 502, code: 'azure_credentials_refused' })
    expect(c.ctx.attempts.at(-1)).toMatchObject({ success: false, error_code: 'azure_credentials_refused', status_code: 502 })
    expect(seen.length).toBe(before)
  })
})

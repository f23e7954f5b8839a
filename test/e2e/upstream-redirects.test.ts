/**
 * Upstream redirects are never followed (issue 26, defect 8). A 307 from an Anthropic base URL made the gateway
 * re-POST the prompt to another origin with `x-api-key` (Bun strips only `Authorization` on a cross-origin
 * redirect). Every provider family is pointed at an upstream that answers every call with a redirect to another
 * origin, which records whether it was reached and with which headers.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { serveRecording } from '../helpers/mock-openai-upstream.ts'
import { useGatewaySuite } from '../helpers/gateway-suite.ts'

const elsewhere = serveRecording(() => Response.json({ id: 'stolen', choices: [], data: [], models: [] }))
const redirector = serveRecording((_req, url) => {
  const status = url.pathname.includes('/permanent/') ? 308 : 307
  return new Response(null, { status, headers: { location: `${elsewhere.origin}${url.pathname}${url.search}` } })
})
afterAll(() => {
  redirector.stop()
  elsewhere.stop()
})

const CREDENTIALS = {
  openai: 'sk-openai-redirect-secret',
  anthropic: 'sk-ant-redirect-secret',
  gemini: 'gemini-redirect-secret',
  azure: 'azure-redirect-secret',
}

const t = useGatewaySuite({
  families: [],
  yaml: () => `
providers:
  oai: { type: openai, api_key: ${CREDENTIALS.openai}, base_url: "${redirector.origin}/v1" }
  oai-permanent: { type: openai, api_key: ${CREDENTIALS.openai}, base_url: "${redirector.origin}/permanent/v1" }
  ant: { type: anthropic, api_key: ${CREDENTIALS.anthropic}, base_url: "${redirector.origin}/v1" }
  gem: { type: gemini, api_key: ${CREDENTIALS.gemini}, base_url: "${redirector.origin}/v1beta" }
  az: { type: azure, api_key: ${CREDENTIALS.azure}, base_url: "${redirector.origin}/openai" }
`,
})

async function post(path: string, body: Record<string, unknown>) {
  const res = await fetch(`${t.gw.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.master}`, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify(body),
  })
  return { status: res.status, body: (await res.json()) as any, requestId: res.headers.get('x-request-id')! }
}

const messages = [{ role: 'user', content: 'a prompt that must stay here' }]

describe('a redirect from the upstream is a 502 upstream_redirect, never followed', () => {
  const cases: [string, string, Record<string, unknown>, number][] = [
    ['OpenAI chat', '/v1/chat/completions', { model: 'oai/gpt-4o', messages }, 307],
    ['OpenAI, permanent redirect', '/v1/chat/completions', { model: 'oai-permanent/gpt-4o', messages }, 308],
    ['OpenAI responses', '/v1/responses', { model: 'oai/gpt-4o', input: 'a prompt that must stay here' }, 307],
    ['OpenAI stream', '/v1/chat/completions', { model: 'oai/gpt-4o', messages, stream: true }, 307],
    ['Anthropic messages', '/v1/messages', { model: 'ant/claude-sonnet-4-5', max_tokens: 10, messages }, 307],
    ['Anthropic through chat', '/v1/chat/completions', { model: 'ant/claude-sonnet-4-5', messages }, 307],
    ['Gemini', '/v1/chat/completions', { model: 'gem/gemini-2.5-flash', messages }, 307],
    ['Azure deployment', '/v1/chat/completions', { model: 'az/gpt-4o', messages }, 307],
  ]
  for (const [name, path, body, upstreamStatus] of cases) {
    test(name, async () => {
      const calls = redirector.requests.length
      const res = await post(path, body)
      expect(res.status).toBe(502)
      const error = res.body.error
      expect(error).toMatchObject({ type: path === '/v1/messages' ? 'api_error' : 'provider_error', message: expect.stringContaining('redirect') })
      if (path !== '/v1/messages') expect(error).toMatchObject({ code: 'upstream_redirect', provider: String(body.model).split('/')[0] })
      expect(redirector.requests.length).toBe(calls + 1)
      const entry = await t.audit.entryFor(res.requestId)
      expect(entry.status_code).toBe(502)
      expect(entry.data.error_code).toBe('upstream_redirect')
      expect(entry.data.attempts!.map((a) => [a.status_code, a.success, a.error_code])).toEqual([[upstreamStatus, false, 'upstream_redirect']])
      expect(elsewhere.requests).toEqual([])
    })
  }

  test('the model list refresh does not follow it either; no credential ever reached the other origin', async () => {
    await t.gw.gateway.catalog.refreshAll()
    expect(redirector.requests.filter((r) => r.method === 'GET').length).toBeGreaterThanOrEqual(5)
    expect(elsewhere.requests).toEqual([])
    // The redirecting upstream did get the credentials: the test would see them leave if anything followed.
    const sent = JSON.stringify(redirector.requests.map((r) => r.headers))
    for (const credential of Object.values(CREDENTIALS)) expect(sent).toContain(credential)
  })
})

/**
 * Every bad input gets its own clear GatewayError with all six fields and the right status.
 */
import { describe, expect, test } from 'bun:test'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startGateway } from '../helpers/gateway.ts'
import { startMockOpenAI } from '../helpers/mock-openai-upstream.ts'
import { useGatewaySuite } from '../helpers/gateway-suite.ts'

const t = useGatewaySuite({ env: { GATEWAY_MAX_BODY_BYTES: '4096' } })

async function call(path: string, init: { method?: string; body?: string; headers?: Record<string, string> } = {}) {
  const res = await fetch(`${t.gw.url}${path}`, {
    method: init.method ?? 'POST',
    headers: { authorization: `Bearer ${t.master}`, 'content-type': 'application/json', ...init.headers },
    body: init.body,
  })
  const body = (await res.json()) as { error: Record<string, unknown> }
  return { status: res.status, error: body.error }
}

function expectGatewayError(error: Record<string, unknown>) {
  expect(Object.keys(error).sort()).toEqual(['code', 'message', 'param', 'provider', 'status_code', 'type'])
}

describe('request validation', () => {
  const cases: [string, string, number, Record<string, unknown>][] = [
    ['invalid JSON', '{"model": ', 400, { code: 'invalid_json' }],
    ['empty body', '', 400, { code: 'invalid_json' }],
    ['JSON array body', '[1,2]', 400, { code: 'invalid_json' }],
    ['missing model', JSON.stringify({ messages: [{ role: 'user', content: 'x' }] }), 400, { param: 'model' }],
    ['missing messages', JSON.stringify({ model: 'openai/gpt-4o' }), 400, { param: 'messages' }],
    ['messages of the wrong type', JSON.stringify({ model: 'openai/gpt-4o', messages: 'hi' }), 400, { param: 'messages' }],
    ['model of the wrong type', JSON.stringify({ model: 42, messages: [{ role: 'user', content: 'x' }] }), 400, { param: 'model' }],
    ['stream of the wrong type', JSON.stringify({ model: 'openai/gpt-4o', stream: 'yes', messages: [{ role: 'user', content: 'x' }] }), 400, { param: 'stream' }],
    [
      'stream_options without stream',
      JSON.stringify({ model: 'openai/gpt-4o', stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'x' }] }),
      400,
      { param: 'stream_options' },
    ],
    ['oversized body', JSON.stringify({ model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'x'.repeat(5000) }] }), 413, { code: 'request_too_large' }],
  ]
  for (const [name, body, status, fields] of cases) {
    test(`${name} → ${status}`, async () => {
      const before = t.openaiMock.requests.length
      const { status: got, error } = await call('/v1/chat/completions', { body })
      expect(got).toBe(status)
      expectGatewayError(error)
      expect(error).toMatchObject({ type: 'invalid_request_error', status_code: status, provider: '', ...fields })
      expect(t.openaiMock.requests.length).toBe(before)
    })
  }

  test('responses: missing model names the field', async () => {
    const { status, error } = await call('/v1/responses', { body: JSON.stringify({ input: 'hi' }) })
    expect(status).toBe(400)
    expect(error.param).toBe('model')
  })

  test('unauthenticated bad JSON is a 401, not a parse error', async () => {
    const { status, error } = await call('/v1/chat/completions', { body: '{bad', headers: { authorization: 'Bearer wrong' } })
    expect(status).toBe(401)
    expect(error.type).toBe('authentication_error')
  })

  test('unknown routes under /v1 and elsewhere are 404 GatewayErrors', async () => {
    for (const path of ['/v1/embeddingz', '/chat/completions']) {
      const { status, error } = await call(path, { method: 'GET' })
      expect(status).toBe(404)
      expectGatewayError(error)
      expect(error.code).toBe('route_not_found')
    }
  })
})

describe('configuration of several instances of one provider type', () => {
  test('YAML declares two OpenAI-compatible providers; a bare name offered by both is a 404 that lists them', async () => {
    const second = startMockOpenAI({ models: ['shared-model', 'only-here'] })
    const dir = mkdtempSync(join(tmpdir(), 'gw-yaml-'))
    const file = join(dir, 'gateway.yaml')
    writeFileSync(
      file,
      `providers:\n  primary:\n    type: openai\n    api_key: \${PRIMARY_KEY}\n    base_url: ${t.openaiMock.url}\n  backup:\n    type: groq\n    api_key: sk-backup\n    base_url: ${second.url}\nvirtual_models:\n  - source: best\n    target: backup/only-here\n`,
    )
    const yamlGw = await startGateway({ GATEWAY_CONFIG: file, PRIMARY_KEY: 'sk-primary', GATEWAY_MASTER_KEY: t.master })
    try {
      const headers = { authorization: `Bearer ${t.master}`, 'content-type': 'application/json' }
      const ambiguous = await fetch(`${yamlGw.baseURL}/chat/completions`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: 'shared-model', messages: [{ role: 'user', content: 'x' }] }),
      })
      expect(ambiguous.status).toBe(404)
      const text = await ambiguous.text()
      expect(text).toContain('primary/shared-model')
      expect(text).toContain('backup/shared-model')

      const viaAlias = await fetch(`${yamlGw.baseURL}/chat/completions`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: 'best', messages: [{ role: 'user', content: 'x' }] }),
      })
      expect(viaAlias.status).toBe(200)
      expect(second.requests.at(-1)!.body.model).toBe('only-here')
      expect(second.requests.at(-1)!.headers.authorization).toBe('Bearer sk-backup')
      const primaryCall = await fetch(`${yamlGw.baseURL}/chat/completions`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: 'primary/gpt-4o', messages: [{ role: 'user', content: 'x' }] }),
      })
      expect(primaryCall.status).toBe(200)
      expect(t.openaiMock.requests.at(-1)!.headers.authorization).toBe('Bearer sk-primary')
    } finally {
      await yamlGw.stop()
      second.stop()
    }
  })
})

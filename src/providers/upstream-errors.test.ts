import { describe, expect, test } from 'bun:test'
import { scrubSecrets, upstreamError } from './upstream-errors.ts'

const h = (init: Record<string, string> = {}) => new Headers(init)

describe('upstreamError', () => {
  const cases: [number, number, string][] = [
    [400, 400, 'invalid_request_error'],
    [404, 404, 'not_found_error'],
    [422, 422, 'invalid_request_error'],
    [429, 429, 'rate_limit_error'],
    [401, 502, 'provider_error'],
    [403, 502, 'provider_error'],
    [500, 500, 'provider_error'],
    [503, 503, 'provider_error'],
    [408, 504, 'provider_error'],
    [418, 418, 'invalid_request_error'],
    [520, 502, 'provider_error'],
  ]
  for (const [upstream, client, type] of cases) {
    test(`upstream ${upstream} → ${client} ${type}`, () => {
      const e = upstreamError({ provider: 'p', status: upstream, body: { error: { message: 'm', code: 'c' } }, text: '', headers: h(), secrets: [] })
      expect([e.status, e.type, e.provider]).toEqual([client, type, 'p'])
    })
  }

  test('429 keeps Retry-After and retry-after-ms', () => {
    const e = upstreamError({ provider: 'p', status: 429, body: undefined, text: 'slow down', headers: h({ 'retry-after': '7', 'retry-after-ms': '7000' }), secrets: [] })
    expect(e.headers).toEqual({ 'retry-after': '7', 'retry-after-ms': '7000' })
    expect(e.message).toBe('slow down')
    expect(e.code).toBe('rate_limit_exceeded')
  })

  test('reads Anthropic, Gemini and plain error shapes', () => {
    expect(
      upstreamError({ provider: 'a', status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: 'bad thing' } }, text: '', headers: h(), secrets: [] })
        .message,
    ).toBe('bad thing')
    expect(
      upstreamError({ provider: 'g', status: 400, body: [{ error: { code: 400, message: 'gem', status: 'INVALID_ARGUMENT' } }], text: '', headers: h(), secrets: [] }).code,
    ).toBe('400')
    expect(upstreamError({ provider: 'v', status: 400, body: { object: 'error', message: 'vllm says' }, text: '', headers: h(), secrets: [] }).message).toBe('vllm says')
  })
})

test('scrubSecrets removes configured secrets and key-like tokens', () => {
  const out = scrubSecrets('Incorrect API key provided: sk-proj-AbC123456789xyz and my-own-secret, Bearer abc.def', ['my-own-secret'])
  expect(out).not.toContain('sk-proj-AbC')
  expect(out).not.toContain('my-own-secret')
  expect(out).not.toContain('abc.def')
})

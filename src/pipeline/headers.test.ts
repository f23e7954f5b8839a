import { describe, expect, test } from 'bun:test'
import { clientHeadersFrom, keepClientHeaders, looksLikeCredential, REDACTED, redactHeaders, scrubCredentialShapes } from './headers.ts'

const upstream = () =>
  new Headers([
    ['content-type', 'application/json'],
    ['content-length', '428'],
    ['content-encoding', 'gzip'],
    ['set-cookie', 'session=1'],
    ['x-request-id', 'req_upstream'],
    ['x-ratelimit-remaining-requests', '99'],
    ['openai-processing-ms', '12'],
    ['connection', 'keep-alive'],
    ['date', 'Tue, 24 Nov 2026 12:00:00 GMT'],
  ])

test('the client gets the forwarded upstream headers, the upstream id and its own id; made in place or anew alike', () => {
  const expected = {
    'content-type': 'application/json',
    'openai-processing-ms': '12',
    'x-ratelimit-remaining-requests': '99',
    'x-request-id': 'req_gateway',
    'x-upstream-request-id': 'req_upstream',
  }
  expect(Object.fromEntries(clientHeadersFrom(upstream(), 'req_gateway'))).toEqual(expected)
  const inPlace = upstream()
  expect(keepClientHeaders(inPlace, 'req_gateway')).toBe(inPlace)
  expect(Object.fromEntries(inPlace)).toEqual(expected)
})

test('without an upstream id there is no x-upstream-request-id', () => {
  const headers = new Headers({ 'content-type': 'application/json', 'x-request-id': '' })
  expect(Object.fromEntries(keepClientHeaders(headers, 'req_gateway'))).toEqual({ 'content-type': 'application/json', 'x-request-id': 'req_gateway' })
})

describe('redactHeaders (issue 26, item 12)', () => {
  const MASTER = 'f3a9c2e17b4d8a6e0c5b9d2f4a7e1c3b'
  const PROVIDER_KEY = 'upstream-provider-secret-value'
  const redacted = (entries: [string, string][], known: readonly string[] = []) => redactHeaders(new Headers(entries), known)

  test.each([
    ['x-forwarded-authorization', 'opaque-session-value-1234'],
    ['x-original-authorization', 'opaque'],
    ['apikey', 'opaque'],
    ['x-upstream-key', 'opaque'],
    ['x-custom-service-key', 'opaque'],
    ['x-api-key', 'opaque'],
    ['api_key', 'opaque'],
    ['x-goog-api-key', 'opaque'],
    ['mcp-session-id', 'opaque-session'],
  ])('by name: %s', (name, value) => {
    expect(redacted([[name, value]])[name]).toBe(REDACTED)
  })

  test.each([
    ['a Basic credential', `Basic ${btoa('alice:hunter2')}`],
    ['a Basic credential of any case', `basic ${btoa('bob:pw')}`],
    ['an AWS access key id', 'AKIAIOSFODNN7EXAMPLE'],
    ['an AWS temporary key id inside a value', 'key=ASIAY34FZKBOKMUTVV7A; region=eu'],
    ['a JWT', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJl'],
    ['a gateway key', 'sk-gw-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
    ['a bearer token', 'Bearer abc.def'],
  ])('by value shape, whatever the name: %s', (_what, value) => {
    expect(redacted([['x-anything', value]])['x-anything']).toBe(REDACTED)
  })

  test('by known value: the master key and provider keys, also inside a longer value', () => {
    const out = redacted(
      [
        ['x-note', `forwarded ${MASTER} here`],
        ['x-other', PROVIDER_KEY],
      ],
      [MASTER, PROVIDER_KEY],
    )
    expect(out).toEqual({ 'x-note': REDACTED, 'x-other': REDACTED })
  })

  test('ordinary headers stay as they are', () => {
    const headers: [string, string][] = [
      ['content-type', 'application/json'],
      ['user-agent', 'OpenAI/JS 7.57.0'],
      ['x-request-id', 'req-0123456789'],
      ['x-session-id', '3f1c0e9a-1111-4222-8333-944455556666'],
      ['x-stainless-os', 'Linux'],
      ['accept', '*/*'],
      ['x-gateway-user-path', '/acme/team-a'],
      ['anthropic-version', '2023-06-01'],
    ]
    expect(redacted(headers, [MASTER])).toEqual(Object.fromEntries(headers))
  })
})

// Header values are bounded by the server's header limit and upstream error bodies at 64 KiB; 256 KiB is far over both.
test('credential shapes are found in linear time: hostile 256 KiB values take milliseconds', () => {
  const size = 256 * 1024
  for (const unit of ['A', 'Basic ', 'eyJ', 'eyJ-', 'eyJa.eyJ-', 'sk-a', 'AKIA', 'Bearer ']) {
    const hostile = `Basic ${unit.repeat(Math.ceil(size / unit.length))}===`
    const started = performance.now()
    scrubCredentialShapes(hostile)
    looksLikeCredential(hostile)
    expect(performance.now() - started).toBeLessThan(250)
  }
})

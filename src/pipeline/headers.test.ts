import { expect, test } from 'bun:test'
import { clientHeadersFrom, keepClientHeaders } from './headers.ts'

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

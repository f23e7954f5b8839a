import { expect, test } from 'bun:test'
import { GatewayError } from '../errors/gateway-error.ts'
import { decodePathParam } from './path-param.ts'

test('a path parameter is percent-decoded once', () => {
  expect(decodePathParam('openai/gpt-4o')).toBe('openai/gpt-4o')
  expect(decodePathParam('openai%2Fgpt-4o')).toBe('openai/gpt-4o')
  expect(decodePathParam('a%2520b')).toBe('a%20b')
  expect(decodePathParam('%E0%A4%A8')).toBe('न')
})

test('one that is not valid percent-encoded UTF-8 is a 400 naming the problem, never a throw', () => {
  for (const raw of ['%E0%A4%A', '%', '%zz', '%C0%AF', 'ok%FF']) {
    const decoded = decodePathParam(raw)
    expect(decoded).toBeInstanceOf(GatewayError)
    expect(decoded).toMatchObject({ status: 400, type: 'invalid_request_error', code: 'invalid_path' })
  }
})

import { expect, test } from 'bun:test'
import { detectSessionId, SESSION_HEADERS } from './session.ts'

const none = new Headers()

test('each known session header is read, first one wins, headers beat the body', () => {
  for (const name of SESSION_HEADERS) expect(detectSessionId(new Headers({ [name]: ` s-${name} ` }), {})).toBe(`s-${name}`)
  expect(detectSessionId(new Headers({ 'x-conversation-id': 'later', 'x-session-id': 'first' }), {})).toBe('first')
  expect(detectSessionId(new Headers({ 'x-session-id': 'header' }), { metadata: { session_id: 'body' } })).toBe('header')
})

test('body fields: metadata.session_id, Claude Code user_id, conversation, prompt_cache_key', () => {
  expect(detectSessionId(none, { metadata: { session_id: 'm-1' } })).toBe('m-1')
  expect(detectSessionId(none, { metadata: { user_id: 'user_9f2c_account_1a2b_session_0b6f4c1e-55aa-4d3e-9c2b-7e8f9a0b1c2d' } })).toBe('0b6f4c1e-55aa-4d3e-9c2b-7e8f9a0b1c2d')
  expect(detectSessionId(none, { conversation: 'conv_1' })).toBe('conv_1')
  expect(detectSessionId(none, { conversation: { id: 'conv_2' } })).toBe('conv_2')
  expect(detectSessionId(none, { prompt_cache_key: 'codex-7' })).toBe('codex-7')
})

test('unusable values are ignored: empty, too long, spaces or control characters', () => {
  expect(detectSessionId(new Headers({ 'x-session-id': '   ' }), {})).toBeUndefined()
  expect(detectSessionId(new Headers({ 'x-session-id': 'a b' }), { prompt_cache_key: 'ok' })).toBe('ok')
  expect(detectSessionId(none, { metadata: { session_id: 'x'.repeat(201) } })).toBeUndefined()
  expect(detectSessionId(none, { metadata: { user_id: 'user_plain' } })).toBeUndefined()
  expect(detectSessionId(none, undefined)).toBeUndefined()
  expect(detectSessionId(none, ['not', 'an', 'object'])).toBeUndefined()
})

import { expect, test } from 'bun:test'
import type { LogData } from './entry.ts'
import { looksLikeConversation, mergeHeavy, splitHeavy } from './projection.ts'

const data: LogData = {
  error_message: 'boom',
  request_headers: { 'content-type': 'application/json' },
  request_body: { messages: [{ role: 'user', content: 'hi' }] },
  response_body: { choices: [] },
  attempts: [
    {
      seq: 1,
      kind: 'primary',
      model: 'm',
      provider_name: 'p',
      provider_type: 'openai',
      started_at: 't',
      duration_ns: 1,
      success: false,
      status_code: 500,
      response_body: { error: 'x' },
      response_headers: { a: 'b' },
    },
    { seq: 2, kind: 'failover', model: 'n', provider_name: 'q', provider_type: 'groq', started_at: 't', duration_ns: 1, success: true, status_code: 200 },
  ],
  request_revisions: [{ seq: 1, rewriter: 'r', bytes_before: 10, bytes_after: 5, tokens_saved: 2, body: { messages: [] } }],
}

test('the light part has no bodies, attempt error bodies or headers, or revision bodies; the rest stays', () => {
  const { light, heavy } = splitHeavy(data)
  const text = JSON.stringify(light)
  expect(text).not.toContain('"request_body"')
  expect(text).not.toContain('"response_body"')
  expect(text).not.toContain('"response_headers"')
  expect(light.request_revisions![0]).not.toHaveProperty('body')
  expect(light.attempts).toHaveLength(2)
  expect(light.request_headers).toEqual({ 'content-type': 'application/json' })
  expect(light.error_message).toBe('boom')
  expect(heavy?.attempts).toEqual([{ index: 0, response_body: { error: 'x' }, response_headers: { a: 'b' } }])
})

test('merging restores the original exactly; without heavy parts nothing is added', () => {
  const { light, heavy } = splitHeavy(data)
  expect(mergeHeavy(light, heavy)).toEqual(data)
  expect(splitHeavy({ error_message: 'x' }).heavy).toBeUndefined()
  const withoutAttemptBodies = mergeHeavy(light, heavy, { attempts: false })
  expect(withoutAttemptBodies.attempts![0]).not.toHaveProperty('response_body')
  expect(withoutAttemptBodies.request_body).toEqual(data.request_body)
})

test('conversation shapes', () => {
  expect(looksLikeConversation({ request_body: { messages: [] } })).toBe(true)
  expect(looksLikeConversation({ request_body: { input: 'hi' } })).toBe(true)
  expect(looksLikeConversation({ request_body: { instructions: 'be brief' } })).toBe(true)
  expect(looksLikeConversation({ request_body: { previous_response_id: 'resp_1' } })).toBe(true)
  expect(looksLikeConversation({ response_body: { output: [{ type: 'message' }] } })).toBe(true)
  expect(looksLikeConversation({ response_body: { object: 'list', data: [] } })).toBe(false)
  expect(looksLikeConversation({ request_body: 'not json' })).toBe(false)
  expect(looksLikeConversation(undefined)).toBe(false)
})

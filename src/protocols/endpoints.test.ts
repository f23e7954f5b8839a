import { expect, test } from 'bun:test'
import { endpoint, ENDPOINTS } from './endpoints.ts'

test('ids and routes are unique; the catch-all comes last', () => {
  expect(new Set(ENDPOINTS.map((e) => e.id)).size).toBe(ENDPOINTS.length)
  expect(new Set(ENDPOINTS.map((e) => `${e.method} ${e.path}`)).size).toBe(ENDPOINTS.length)
  expect(ENDPOINTS.at(-1)).toMatchObject({ id: 'not_found', method: 'ALL', path: '/v1/*' })
  for (const e of ENDPOINTS) expect(endpoint(e.id)).toBe(e)
})

test('every row is consistent: JSON bodies are checked, routed rows go upstream, metered rows are routed', () => {
  for (const e of ENDPOINTS) {
    expect({ id: e.id, checked: e.body === 'json' ? e.request !== undefined : true }).toEqual({ id: e.id, checked: true })
    if (e.routed) expect({ id: e.id, local: e.local }).toEqual({ id: e.id, local: false })
    if (e.metered) expect({ id: e.id, routed: e.routed }).toEqual({ id: e.id, routed: true })
    if (!e.routed) expect({ id: e.id, local: e.local }).toEqual({ id: e.id, local: true })
  }
})

test('the request schemas report the offending field', () => {
  const chat = endpoint('chat.completions').request!.safeParse({ model: 'm', messages: 'hi' })
  expect(chat.success).toBe(false)
  expect(chat.error!.issues[0]!.path).toEqual(['messages'])
})

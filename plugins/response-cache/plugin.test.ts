import { expect, test } from 'bun:test'
import { cacheKey } from './cache-key.ts'

test('the key ignores key order and delivery fields, not content or target', () => {
  const a = cacheKey('chat.completions', 'openai/m', { model: 'm', messages: [{ role: 'user', content: 'x' }], temperature: 0 })
  const b = cacheKey('chat.completions', 'openai/m', {
    temperature: 0,
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ content: 'x', role: 'user' }],
    model: 'm',
  })
  expect(a).toBe(b)
  expect(cacheKey('chat.completions', 'groq/m', { model: 'm', messages: [{ role: 'user', content: 'x' }], temperature: 0 })).not.toBe(a)
  expect(cacheKey('chat.completions', 'openai/m', { model: 'm', messages: [{ role: 'user', content: 'y' }], temperature: 0 })).not.toBe(a)
})

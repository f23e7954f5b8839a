/**
 * The response cache end to end: hit and miss for plain and streamed requests, bypass headers, coalescing.
 */
import { expect, test } from 'bun:test'
import type OpenAI from 'openai'
import { useGatewaySuite } from '../helpers/gateway-suite.ts'

const t = useGatewaySuite({
  yaml: () => `workflows:\n  - name: default\n    features: { cache: true }\n    plugins:\n      response-cache: { ttl_seconds: 60 }\n`,
})

const calls = (content: string) => t.openaiMock.requests.filter((r) => r.body?.messages?.[0]?.content === content).length
const ask = (content: string, options: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  t.openai.chat.completions.create({ model: 'openai/gpt-4o', messages: [{ role: 'user', content }], ...options } as never, { headers }).withResponse()

test('plain: miss, then hit without an upstream call', async () => {
  const first = await ask('echo:cache me')
  expect(first.response.headers.get('x-cache')).toBe('MISS')
  const second = await ask('echo:cache me')
  expect(second.response.headers.get('x-cache')).toBe('HIT')
  expect((second.data as OpenAI.ChatCompletion).choices[0]!.message.content).toBe('cache me')
  expect(calls('echo:cache me')).toBe(1)
})

test('stream: a streamed miss fills the cache; a streamed hit is a well-formed replay', async () => {
  const first = t.openai.chat.completions.stream({ model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'echo:streamed once' }] })
  expect((await first.finalChatCompletion()).choices[0]!.message.content).toBe('streamed once')
  const replay = t.openai.chat.completions.stream({ model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'echo:streamed once' }], stream_options: { include_usage: true } })
  const final = await replay.finalChatCompletion()
  expect(final.choices[0]!.message.content).toBe('streamed once')
  expect(final.choices[0]!.finish_reason).toBe('stop')
  const plain = await ask('echo:streamed once')
  expect(plain.response.headers.get('x-cache')).toBe('HIT')
  expect(calls('echo:streamed once')).toBe(1)
})

test('Cache-Control: no-cache refreshes, no-store bypasses entirely', async () => {
  await ask('echo:bypass')
  const refreshed = await ask('echo:bypass', {}, { 'cache-control': 'no-cache' })
  expect(refreshed.response.headers.get('x-cache')).toBe('MISS')
  expect(calls('echo:bypass')).toBe(2)
  const skipped = await ask('echo:bypass', {}, { 'cache-control': 'no-store' })
  expect(skipped.response.headers.get('x-cache')).toBeNull()
  expect(calls('echo:bypass')).toBe(3)
  expect((await ask('echo:bypass')).response.headers.get('x-cache')).toBe('HIT')
})

test('errors are not cached', async () => {
  await t.openai.chat.completions.create({ model: 'openai/error-500', messages: [{ role: 'user', content: 'fail' }] }).catch(() => {})
  await t.openai.chat.completions.create({ model: 'openai/error-500', messages: [{ role: 'user', content: 'fail' }] }).catch(() => {})
  expect(t.openaiMock.requests.filter((r) => r.body?.model === 'error-500').length).toBe(2)
})

test('identical concurrent misses call the upstream once', async () => {
  const body = { model: 'openai/slow-first-byte', messages: [{ role: 'user', content: 'coalesce' }], metadata: { delay_ms: '250' } }
  const results = await Promise.all(Array.from({ length: 6 }, () => t.openai.chat.completions.create(body as never).withResponse()))
  expect(results.every((r) => (r.data as OpenAI.ChatCompletion).choices[0]!.message.content === 'late')).toBe(true)
  expect(t.openaiMock.requests.filter((r) => r.body?.model === 'slow-first-byte').length).toBe(1)
  expect(results.filter((r) => r.response.headers.get('x-cache') === 'HIT')).toHaveLength(5)
})

import { expect, test } from 'bun:test'
import { ChatStreamFold } from '../../src/pipeline/chat-stream-fold.ts'
import { SseParser } from '../../src/pipeline/sse.ts'
import { cacheKey } from './cache-key.ts'
import { replayCompletion } from '../../src/protocols/chat-wire.ts'

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

test('a replayed stream folds back into the cached completion', async () => {
  const completion = {
    id: 'c1',
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: 'hi 🙂', refusal: null, tool_calls: [{ id: 't1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }] },
        logprobs: null,
        finish_reason: 'tool_calls',
      },
    ],
    usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
  }
  const text = await new Response(replayCompletion(completion, true)).text()
  expect(text).toEndWith('data: [DONE]\n\n')
  const fold = new ChatStreamFold()
  const parser = new SseParser()
  for (const e of parser.push(new TextEncoder().encode(text))) if (e.data !== '[DONE]') fold.add(JSON.parse(e.data))
  expect(fold.result()).toEqual(completion)
  expect(await new Response(replayCompletion(completion, false)).text()).not.toContain('"usage"')
})

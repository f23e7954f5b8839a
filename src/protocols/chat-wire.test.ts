import { expect, test } from 'bun:test'
import { ChatStreamFold } from '../pipeline/chat-stream-fold.ts'
import { SseParser } from '../pipeline/sse.ts'
import { asksForUsageChunk, chatAssistantMessage, chatCompletion, replayCompletion } from './chat-wire.ts'

test('an assistant message: texts joined, null content without text, reasoning and tool calls only when present', () => {
  expect(chatAssistantMessage(['a', 'b'], [], [])).toEqual({ role: 'assistant', content: 'ab', refusal: null })
  const call = { id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }
  expect(chatAssistantMessage([], ['think'], [call])).toEqual({ role: 'assistant', content: null, refusal: null, reasoning_content: 'think', tool_calls: [call] })
})

test('a replayed completion folds back into the same completion; a provider extra on a tool call survives', async () => {
  const call = { id: 't1', type: 'function', function: { name: 'f', arguments: '{"a":1}' }, extra_content: { google: { thought_signature: 'sig' } } }
  const choice = { index: 0, message: chatAssistantMessage(['hi 🙂'], [], [call]), logprobs: null, finish_reason: 'tool_calls' }
  const completion = chatCompletion({ id: 'chatcmpl-1', created: 1, model: 'm' }, [choice], { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 })
  const text = await new Response(replayCompletion(completion, true)).text()
  expect(text).toEndWith('data: [DONE]\n\n')
  expect(text).toContain('"thought_signature":"sig"')
  const fold = new ChatStreamFold()
  for (const e of new SseParser().push(new TextEncoder().encode(text))) if (e.data !== '[DONE]') fold.add(JSON.parse(e.data))
  expect(fold.result()).toMatchObject({ ...completion, choices: [{ ...choice, message: { ...choice.message, tool_calls: [{ id: 't1', function: call.function }] } }] })
  expect(await new Response(replayCompletion(completion, false)).text()).not.toContain('"usage"')
})

test('the usage chunk is asked for only by stream_options.include_usage: true', () => {
  expect(asksForUsageChunk({ stream: true, stream_options: { include_usage: true } })).toBe(true)
  expect(asksForUsageChunk({ stream: true, stream_options: { include_usage: 'yes' } })).toBe(false)
  expect(asksForUsageChunk({ stream: true, stream_options: null })).toBe(false)
  expect(asksForUsageChunk({ stream: true })).toBe(false)
})

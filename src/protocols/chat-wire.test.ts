import { expect, test } from 'bun:test'
import { ChatStreamFold } from '../pipeline/chat-stream-fold.ts'
import { SseParser } from '../pipeline/sse.ts'
import { asksForUsageChunk, chatAssistantMessage, chatCompletion, replayCompletion } from './chat-wire.ts'

test('an assistant message: texts joined, null content without text, reasoning and tool calls only when present', () => {
  expect(chatAssistantMessage(['a', 'b'], [], [])).toEqual({ role: 'assistant', content: 'ab', refusal: null })
  const call = { id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }
  expect(chatAssistantMessage([], ['think'], [call])).toEqual({ role: 'assistant', content: null, refusal: null, reasoning_content: 'think', tool_calls: [call] })
})

test('a replayed completion folds back into the same completion; the usage chunk only when asked for', async () => {
  const call = { id: 't1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }
  const choice = { index: 0, message: chatAssistantMessage(['hi 🙂'], [], [call]), logprobs: null, finish_reason: 'tool_calls' }
  const completion = chatCompletion({ id: 'chatcmpl-1', created: 1, model: 'm' }, [choice], { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 })
  const text = await new Response(replayCompletion(completion, true)).text()
  expect(text).toEndWith('data: [DONE]\n\n')
  const fold = new ChatStreamFold()
  for (const e of new SseParser().push(new TextEncoder().encode(text))) if (e.data !== '[DONE]') fold.add(JSON.parse(e.data))
  expect(fold.result()).toEqual(completion)
  expect(await new Response(replayCompletion(completion, false)).text()).not.toContain('"usage"')
})

test("a tool call's provider extra (Gemini's thought signature) survives the replay", async () => {
  const call = { id: 't1', type: 'function', function: { name: 'f', arguments: '{}' }, extra_content: { google: { thought_signature: 'sig' } } }
  const completion = chatCompletion({ id: 'c', created: 1, model: 'm' }, [{ index: 0, message: chatAssistantMessage([], [], [call]), finish_reason: 'tool_calls' }], {})
  const frames = new SseParser().push(new TextEncoder().encode(await new Response(replayCompletion(completion, false)).text()))
  const delta = frames.map((e) => (e.data === '[DONE]' ? undefined : JSON.parse(e.data).choices[0].delta)).find((d) => d?.tool_calls)
  expect(delta.tool_calls).toEqual([{ index: 0, ...call }])
})

test('the usage chunk is asked for only by stream_options.include_usage: true', () => {
  expect(asksForUsageChunk({ stream: true, stream_options: { include_usage: true } })).toBe(true)
  expect(asksForUsageChunk({ stream: true, stream_options: { include_usage: 'yes' } })).toBe(false)
  expect(asksForUsageChunk({ stream: true, stream_options: null })).toBe(false)
  expect(asksForUsageChunk({ stream: true })).toBe(false)
})

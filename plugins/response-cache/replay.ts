/**
 * @module A cached `chat.completion` replayed as a well-formed chat stream: role chunk, content, tool calls
 * (id, type and name on their first fragment), the finish chunk, the usage chunk when the client asked for
 * it, and `[DONE]`.
 */
import { dataFrame, DONE_FRAME } from '../../src/pipeline/sse.ts'

type Json = Record<string, unknown>

export function replayAsStream(completion: Json, includeUsage: boolean): ReadableStream<Uint8Array> {
  const base = { id: completion.id, object: 'chat.completion.chunk', created: completion.created, model: completion.model }
  const frames: Uint8Array[] = []
  const chunk = (choices: Json[], extra: Json = {}) => frames.push(dataFrame({ ...base, choices, ...extra }))
  for (const choice of (Array.isArray(completion.choices) ? completion.choices : []) as Json[]) {
    const index = choice.index ?? 0
    const message = (choice.message ?? {}) as Json
    chunk([{ index, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }])
    if (typeof message.content === 'string' && message.content) chunk([{ index, delta: { content: message.content }, logprobs: null, finish_reason: null }])
    const calls = (Array.isArray(message.tool_calls) ? message.tool_calls : []) as Json[]
    calls.forEach((call, i) =>
      chunk([{ index, delta: { tool_calls: [{ index: i, id: call.id, type: call.type ?? 'function', function: call.function }] }, logprobs: null, finish_reason: null }]),
    )
    chunk([{ index, delta: {}, logprobs: null, finish_reason: choice.finish_reason ?? 'stop' }])
  }
  if (includeUsage && completion.usage) chunk([], { usage: completion.usage })
  frames.push(DONE_FRAME)
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const frame of frames) controller.enqueue(frame)
      controller.close()
    },
  })
}

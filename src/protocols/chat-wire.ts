/**
 * @module The Chat Completions wire shapes the gateway writes itself: the `chat.completion` a provider adapter
 * translates an answer into, the `chat.completion.chunk` frames of a translated stream, and a completion replayed
 * as a stream (a cache hit, an upstream that answered JSON to a stream request). One place, so every adapter's
 * answer carries the same fields in the same order.
 */
import { dataFrame, DONE_FRAME } from '../pipeline/sse.ts'

type Json = Record<string, unknown>

/** What every chunk of one answer repeats. */
export interface ChatAnswerHead {
  id: unknown
  created: unknown
  model: unknown
}

/** One choice's assistant message: the texts joined (null without any), reasoning joined, tool calls. */
export function chatAssistantMessage(texts: string[], reasoning: string[], toolCalls: Json[]): Json {
  const message: Json = { role: 'assistant', content: texts.length > 0 ? texts.join('') : null, refusal: null }
  if (reasoning.length > 0) message.reasoning_content = reasoning.join('')
  if (toolCalls.length > 0) message.tool_calls = toolCalls
  return message
}

export function chatCompletion(head: ChatAnswerHead, choices: Json[], usage: Json): Json {
  return { id: head.id, object: 'chat.completion', created: head.created, model: head.model, choices, usage }
}

/** Whether a chat request asked for the usage chunk at the end of its stream (`stream_options.include_usage`). */
export function asksForUsageChunk(body: Json): boolean {
  return (body.stream_options as { include_usage?: unknown } | null | undefined)?.include_usage === true
}

/** One choice's delta as a `data:` frame. */
export function chatChunkFrame(head: ChatAnswerHead, index: unknown, delta: Json, finishReason: unknown = null): Uint8Array {
  return dataFrame({
    id: head.id,
    object: 'chat.completion.chunk',
    created: head.created,
    model: head.model,
    choices: [{ index, delta, logprobs: null, finish_reason: finishReason }],
  })
}

/** The usage chunk (no choices) that ends a stream whose client asked for `stream_options.include_usage`. */
export function chatUsageFrame(head: ChatAnswerHead, usage: unknown): Uint8Array {
  return dataFrame({ id: head.id, object: 'chat.completion.chunk', created: head.created, model: head.model, choices: [], usage })
}

/**
 * A `chat.completion` replayed as a well-formed chat stream: per choice the role chunk, the content, each tool call
 * whole (id, type, name, arguments and any provider extra on its only fragment), the finish chunk; then the usage chunk when asked for, and `[DONE]`.
 */
export function replayCompletion(completion: Json, includeUsage: boolean): ReadableStream<Uint8Array> {
  const head = completion as unknown as ChatAnswerHead
  const frames: Uint8Array[] = []
  for (const choice of (Array.isArray(completion.choices) ? completion.choices : []) as Json[]) {
    const index = choice.index ?? 0
    const message = (choice.message ?? {}) as Json
    frames.push(chatChunkFrame(head, index, { role: 'assistant', content: '' }))
    if (typeof message.content === 'string' && message.content) frames.push(chatChunkFrame(head, index, { content: message.content }))
    const calls = (Array.isArray(message.tool_calls) ? message.tool_calls : []) as Json[]
    calls.forEach((call, i) => frames.push(chatChunkFrame(head, index, { tool_calls: [{ index: i, ...call, type: call.type ?? 'function' }] })))
    frames.push(chatChunkFrame(head, index, {}, choice.finish_reason ?? 'stop'))
  }
  if (includeUsage && completion.usage) frames.push(chatUsageFrame(head, completion.usage))
  frames.push(DONE_FRAME)
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const frame of frames) controller.enqueue(frame)
      controller.close()
    },
  })
}

/**
 * @module Anthropic Messages stream → OpenAI chat chunks. Anthropic dispatches on SSE event names
 * (`message_start`, `content_block_start/delta/stop`, `message_delta`, `message_stop`, `ping`, `error`); each is
 * turned into `data:`-only chat chunks: the role first, text deltas, one tool call per `tool_use` block (id, type
 * and name on its first fragment, `index` on every fragment), the finish chunk, the usage chunk when the client
 * asked for it, and `[DONE]`. An `error` event becomes `data: {"error":…}` and ends the stream.
 */
import { DONE_FRAME, eventPayload, type SseEvent } from '../../../src/pipeline/sse.ts'
import { type ChatAnswerHead, chatChunkFrame, chatUsageFrame } from '../../../src/protocols/chat-wire.ts'
import { chatErrorFrame, chatStreamEndedEarly, type EventStreamTranslator, translateEventStream } from '../../../src/protocols/stream-translation.ts'
import { chatUsage, finishReason } from './response.ts'

type Json = Record<string, unknown>

export class AnthropicStreamTranslator implements EventStreamTranslator {
  /** Filled from message_start. */
  private readonly head: ChatAnswerHead = { id: '', created: Math.floor(Date.now() / 1000), model: '' }
  private usage: Json = {}
  private toolIndexByBlock = new Map<number, number>()
  private nextToolIndex = 0
  private finished = false
  done = false

  constructor(private readonly includeUsage: boolean) {}

  private chunk(delta: Json, finish: string | null = null): Uint8Array {
    return chatChunkFrame(this.head, 0, delta, finish)
  }

  /** Frames for one Anthropic event. */
  translate(event: SseEvent): Uint8Array[] {
    const payload = eventPayload(event)
    if (!payload) return []
    const type = event.event ?? (payload.type as string | undefined)
    switch (type) {
      case 'message_start': {
        const message = (payload.message ?? {}) as Json
        this.head.id = String(message.id ?? '')
        this.head.model = String(message.model ?? '')
        this.usage = { ...((message.usage as Json) ?? {}) }
        return [this.chunk({ role: 'assistant', content: '' })]
      }
      case 'content_block_start': {
        const block = (payload.content_block ?? {}) as Json
        if (block.type !== 'tool_use') return []
        const index = this.nextToolIndex++
        this.toolIndexByBlock.set(Number(payload.index), index)
        return [this.chunk({ tool_calls: [{ index, id: block.id, type: 'function', function: { name: block.name, arguments: '' } }] })]
      }
      case 'content_block_delta': {
        const delta = (payload.delta ?? {}) as Json
        if (delta.type === 'text_delta' && typeof delta.text === 'string') return [this.chunk({ content: delta.text })]
        if (delta.type === 'thinking_delta' && typeof delta.thinking === 'string') return [this.chunk({ reasoning_content: delta.thinking })]
        if (delta.type === 'input_json_delta' && typeof delta.partial_json === 'string' && delta.partial_json !== '') {
          const index = this.toolIndexByBlock.get(Number(payload.index))
          if (index === undefined) return []
          return [this.chunk({ tool_calls: [{ index, function: { arguments: delta.partial_json } }] })]
        }
        return []
      }
      case 'message_delta': {
        // Usage in message_delta is cumulative; null fields leave the earlier values.
        for (const [k, v] of Object.entries((payload.usage as Json) ?? {})) if (v !== null && v !== undefined) this.usage[k] = v
        const stop = (payload.delta as Json | undefined)?.stop_reason
        if (stop === undefined || stop === null) return []
        this.finished = true
        return [this.chunk({}, finishReason(stop))]
      }
      case 'message_stop': {
        this.done = true
        const frames: Uint8Array[] = []
        if (!this.finished) frames.push(this.chunk({}, 'stop'))
        if (this.includeUsage) frames.push(chatUsageFrame(this.head, chatUsage(this.usage)))
        frames.push(DONE_FRAME)
        return frames
      }
      case 'error': {
        this.done = true
        const error = (payload.error ?? {}) as Json
        const type = String(error.type ?? 'server_error')
        return [chatErrorFrame(String(error.message ?? 'The provider reported an error.'), type, type)]
      }
      default:
        return [] // ping and future event types
    }
  }

  /** The upstream ended without message_stop: say so rather than end silently. */
  end(): Uint8Array[] {
    this.done = true
    return [chatStreamEndedEarly()]
  }
}

export function anthropicStreamToChat(body: ReadableStream<Uint8Array>, includeUsage: boolean): ReadableStream<Uint8Array> {
  return translateEventStream(body, new AnthropicStreamTranslator(includeUsage))
}

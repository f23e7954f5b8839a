/**
 * @module Chat chunk stream → Anthropic Messages event stream, every event with its `event:` line (the Anthropic
 * SDKs dispatch on it). `message_start` goes out at once; text opens a `text` block, each tool call a `tool_use`
 * block whose arguments stream as `input_json_delta` (blocks numbered from 0 in order, each closed before the
 * next opens); the end is `message_delta` (stop reason and the whole usage, input and cache tokens included)
 * then `message_stop`. An upstream error, in the stream or breaking it, becomes `event: error` and ends it; so
 * does a stream that stops before a finish reason.
 */
import type { GatewayError } from '../../errors/gateway-error.ts'
import { namedEventFrame } from '../../pipeline/sse.ts'
import { type ChatStreamWriter, chatStreamInterrupted, chatStreamToProtocol } from '../stream-translation.ts'
import { anthropicErrorBody } from './errors.ts'
import { anthropicUsage, messageId, stopReason } from './response.ts'

type Json = Record<string, unknown>

interface OpenBlock {
  index: number
  kind: 'text' | 'tool_use'
}

export class MessagesStreamWriter implements ChatStreamWriter {
  private nextBlock = 0
  private open?: OpenBlock
  /** Chat tool-call index → content block index. */
  private readonly toolBlocks = new Map<number, number>()
  private finishReason: unknown
  private refused = false
  private usage: unknown
  ended = false

  constructor(
    private readonly model: string,
    private readonly emit: (frame: Uint8Array) => void,
  ) {}

  private event(type: string, payload: Json): void {
    this.emit(namedEventFrame(type, { type, ...payload }))
  }

  start(id = messageId(undefined)): void {
    this.event('message_start', {
      message: { id, type: 'message', role: 'assistant', model: this.model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 0, output_tokens: 0 } },
    })
  }

  chunk(chunk: Json): void {
    if (chunk.usage) this.usage = chunk.usage
    const choices = (Array.isArray(chunk.choices) ? chunk.choices : []) as Json[]
    const choice = choices.find((c) => (c.index ?? 0) === 0)
    if (!choice) return
    const delta = (choice.delta ?? {}) as Json
    if (typeof delta.content === 'string' && delta.content) this.text(delta.content)
    if (typeof delta.refusal === 'string' && delta.refusal) {
      this.refused = true
      this.text(delta.refusal)
    }
    if (Array.isArray(delta.tool_calls)) for (const call of delta.tool_calls as Json[]) this.toolCall(call)
    if (choice.finish_reason) this.finishReason = choice.finish_reason
  }

  private openBlock(kind: OpenBlock['kind'], contentBlock: Json): number {
    this.closeBlock()
    const index = this.nextBlock++
    this.open = { index, kind }
    this.event('content_block_start', { index, content_block: contentBlock })
    return index
  }

  private closeBlock(): void {
    if (!this.open) return
    this.event('content_block_stop', { index: this.open.index })
    this.open = undefined
  }

  private text(piece: string): void {
    const index = this.open?.kind === 'text' ? this.open.index : this.openBlock('text', { type: 'text', text: '' })
    this.event('content_block_delta', { index, delta: { type: 'text_delta', text: piece } })
  }

  private toolCall(call: Json): void {
    const toolIndex = typeof call.index === 'number' ? call.index : 0
    const fn = (call.function ?? {}) as Json
    let index = this.toolBlocks.get(toolIndex)
    if (index === undefined) {
      const id = typeof call.id === 'string' && call.id ? call.id : `toolu_${crypto.randomUUID().replaceAll('-', '')}`
      index = this.openBlock('tool_use', { type: 'tool_use', id, name: typeof fn.name === 'string' ? fn.name : '', input: {} })
      this.toolBlocks.set(toolIndex, index)
    }
    if (typeof fn.arguments === 'string' && fn.arguments) this.event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: fn.arguments } })
  }

  /** The end: why the upstream stopped, or an error when it never said (the stream broke off). */
  finish(): void {
    if (this.ended) return
    if (this.finishReason === undefined) return this.fail(chatStreamInterrupted())
    this.ended = true
    this.closeBlock()
    const reason = this.refused ? 'refusal' : stopReason(this.finishReason, this.toolBlocks.size > 0)
    this.event('message_delta', { delta: { stop_reason: reason, stop_sequence: null }, usage: anthropicUsage(this.usage) })
    this.event('message_stop', {})
  }

  fail(error: GatewayError): void {
    if (this.ended) return
    this.ended = true
    this.emit(namedEventFrame('error', anthropicErrorBody(error)))
  }
}

export function chatStreamToMessages(chunks: ReadableStream<Uint8Array>, model: string): ReadableStream<Uint8Array> {
  return chatStreamToProtocol(chunks, (emit) => new MessagesStreamWriter(model, emit))
}

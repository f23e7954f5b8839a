/**
 * @module Chat chunk stream → Responses event stream. Emits `response.created` and `response.in_progress`
 * first, opens and closes message and function-call items as the chunks arrive (`output_item.added`,
 * `content_part.added`, `output_text.delta`, `function_call_arguments.delta`, … `output_item.done`), numbers
 * every event from 0, and ends with exactly one of `response.completed`, `response.incomplete` or
 * `response.failed` — also when the upstream breaks off.
 */
import type { GatewayError } from '../../errors/gateway-error.ts'
import { namedEventFrame } from '../../pipeline/sse.ts'
import { type ChatStreamWriter, chatStreamInterrupted, chatStreamToProtocol } from '../stream-translation.ts'
import { completionStatus, messageItem, newId, responseEnvelope, responsesUsage, toolCallItem } from './response.ts'
import { clientToolName, type ClientToolName, type ToolNames } from './tools.ts'

type Json = Record<string, unknown>

interface OpenToolCall {
  outputIndex: number
  itemId: string
  callId: string
  name: string
  arguments: string
  tool: ClientToolName
}

class ResponsesStreamWriter implements ChatStreamWriter {
  private seq = 0
  private readonly response: Json
  private readonly output: Json[] = []
  private message?: { outputIndex: number; id: string; text: string; refusal: string }
  private readonly toolCalls = new Map<number, OpenToolCall>()
  private currentTool?: OpenToolCall
  private finishReason: unknown
  private usage: unknown
  private model = ''
  ended = false

  constructor(
    private readonly request: Json,
    private readonly toolNames: ToolNames,
    private readonly emit: (frame: Uint8Array) => void,
    targetModel: string,
  ) {
    // Written before the upstream said anything: the target's model id; the last event carries the upstream's.
    this.response = responseEnvelope(request, newId('resp'), targetModel || String(request.model ?? ''), Math.floor(Date.now() / 1000))
  }

  private event(type: string, payload: Json): void {
    this.emit(namedEventFrame(type, { type, ...payload, sequence_number: this.seq++ }))
  }

  start(): void {
    this.event('response.created', { response: { ...this.response } })
    this.event('response.in_progress', { response: { ...this.response } })
  }

  chunk(chunk: Json): void {
    if (typeof chunk.model === 'string' && !this.model) this.model = chunk.model
    if (chunk.usage) this.usage = chunk.usage
    const choice = (Array.isArray(chunk.choices) ? chunk.choices[0] : undefined) as Json | undefined
    if (!choice) return
    const delta = (choice.delta ?? {}) as Json
    if (typeof delta.content === 'string' && delta.content) this.text(delta.content, 'text')
    if (typeof delta.refusal === 'string' && delta.refusal) this.text(delta.refusal, 'refusal')
    if (Array.isArray(delta.tool_calls)) for (const call of delta.tool_calls as Json[]) this.toolCallDelta(call)
    if (choice.finish_reason) this.finishReason = choice.finish_reason
  }

  private text(piece: string, kind: 'text' | 'refusal'): void {
    this.closeTool()
    if (!this.message) {
      const id = newId('msg')
      this.message = { outputIndex: this.output.length, id, text: '', refusal: '' }
      this.output.push(messageItem(id, '', null, 'in_progress'))
      this.event('response.output_item.added', { output_index: this.message.outputIndex, item: { type: 'message', id, status: 'in_progress', role: 'assistant', content: [] } })
      const part = kind === 'text' ? { type: 'output_text', annotations: [], logprobs: [], text: '' } : { type: 'refusal', refusal: '' }
      this.event('response.content_part.added', { item_id: id, output_index: this.message.outputIndex, content_index: 0, part })
    }
    const m = this.message
    if (kind === 'text') {
      m.text += piece
      this.event('response.output_text.delta', { item_id: m.id, output_index: m.outputIndex, content_index: 0, delta: piece, logprobs: [] })
    } else {
      m.refusal += piece
      this.event('response.refusal.delta', { item_id: m.id, output_index: m.outputIndex, content_index: 0, delta: piece })
    }
  }

  private closeMessage(): void {
    const m = this.message
    if (!m) return
    this.message = undefined
    if (m.text || !m.refusal) {
      this.event('response.output_text.done', { item_id: m.id, output_index: m.outputIndex, content_index: 0, text: m.text, logprobs: [] })
      this.event('response.content_part.done', {
        item_id: m.id,
        output_index: m.outputIndex,
        content_index: 0,
        part: { type: 'output_text', annotations: [], logprobs: [], text: m.text },
      })
    } else {
      this.event('response.refusal.done', { item_id: m.id, output_index: m.outputIndex, content_index: 0, refusal: m.refusal })
      this.event('response.content_part.done', { item_id: m.id, output_index: m.outputIndex, content_index: 0, part: { type: 'refusal', refusal: m.refusal } })
    }
    const item = messageItem(m.id, m.text, m.refusal || null)
    this.output[m.outputIndex] = item
    this.event('response.output_item.done', { output_index: m.outputIndex, item })
  }

  private toolCallDelta(call: Json): void {
    const index = typeof call.index === 'number' ? call.index : 0
    const fn = (call.function ?? {}) as Json
    let open = this.toolCalls.get(index)
    if (!open) {
      this.closeMessage()
      this.closeTool()
      const name = String(fn.name ?? '')
      const tool = clientToolName(name, this.toolNames)
      open = { outputIndex: this.output.length, itemId: '', callId: String(call.id ?? newId('call')), name, arguments: '', tool }
      const item = toolCallItem({ id: open.callId, name, arguments: '' }, tool, 'in_progress')
      open.itemId = String(item.id)
      this.output.push(item)
      this.toolCalls.set(index, open)
      this.currentTool = open
      this.event('response.output_item.added', { output_index: open.outputIndex, item })
    }
    if (typeof fn.arguments === 'string' && fn.arguments) {
      open.arguments += fn.arguments
      // Custom tools carry their raw input inside a JSON wrapper; their text is only known whole, at the end.
      if (!open.tool.custom) this.event('response.function_call_arguments.delta', { item_id: open.itemId, output_index: open.outputIndex, delta: fn.arguments })
    }
  }

  private closeTool(): void {
    const t = this.currentTool
    if (!t) return
    this.currentTool = undefined
    const item: Json = { ...toolCallItem({ id: t.callId, name: t.name, arguments: t.arguments }, t.tool), id: t.itemId }
    if (t.tool.custom) {
      this.event('response.custom_tool_call_input.delta', { item_id: t.itemId, output_index: t.outputIndex, delta: item.input })
      this.event('response.custom_tool_call_input.done', { item_id: t.itemId, output_index: t.outputIndex, input: item.input })
    } else {
      this.event('response.function_call_arguments.done', { item_id: t.itemId, output_index: t.outputIndex, name: t.tool.name, arguments: t.arguments })
    }
    this.output[t.outputIndex] = item
    this.event('response.output_item.done', { output_index: t.outputIndex, item })
  }

  finish(): void {
    if (this.ended) return
    if (this.finishReason === undefined) return this.fail(chatStreamInterrupted())
    this.ended = true
    this.closeMessage()
    this.closeTool()
    const { status, incomplete_details } = completionStatus(this.finishReason)
    const final = {
      ...this.response,
      model: this.model || this.response.model,
      status,
      incomplete_details,
      completed_at: status === 'completed' ? Math.floor(Date.now() / 1000) : null,
      output: this.output,
      usage: responsesUsage(this.usage),
    }
    this.event(status === 'completed' ? 'response.completed' : 'response.incomplete', { response: final })
  }

  fail(error: GatewayError): void {
    if (this.ended) return
    this.ended = true
    this.closeMessage()
    this.closeTool()
    const failed = {
      ...this.response,
      status: 'failed',
      error: { code: error.code ?? 'server_error', message: error.message },
      output: this.output,
      usage: responsesUsage(this.usage),
    }
    this.event('response.failed', { response: failed })
  }
}

export function chatStreamToResponses(chunks: ReadableStream<Uint8Array>, request: Json, toolNames: ToolNames, targetModel = ''): ReadableStream<Uint8Array> {
  return chatStreamToProtocol(chunks, (emit) => new ResponsesStreamWriter(request, toolNames, emit, targetModel))
}

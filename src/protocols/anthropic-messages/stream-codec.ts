/**
 * @module The `/v1/messages` stream codec: folds Anthropic events (native or translated) into the message they
 * add up to, for the audit log and usage, and ends a broken stream with the `event: error` frame the Anthropic
 * SDKs raise on.
 */
import { namedEventFrame } from '../../pipeline/sse.ts'
import type { StreamCodec, StreamFold } from '../../pipeline/stream-codecs.ts'
import { anthropicErrorBody } from './errors.ts'

type Json = Record<string, unknown>

/** Events that can carry usage or an error; the only ones parsed when just the usage is needed. */
const USAGE_EVENTS = new Set(['message_start', 'message_delta', 'error'])

function parse(data: string): Json | undefined {
  try {
    const v = JSON.parse(data)
    return typeof v === 'object' && v !== null ? (v as Json) : undefined
  } catch {
    return undefined
  }
}

export class MessagesStreamFold implements StreamFold {
  private message?: Json
  /** By the upstream's block index, any number it sends (an array indexed by it would be sparse: see ChatStreamFold). */
  private readonly blocks = new Map<number, Json>()
  /** Tool input arrives as JSON text in pieces; parsed when asked for the result. */
  private readonly inputJson = new Map<number, string>()
  private usageSoFar: Json = {}
  private streamError: unknown

  constructor(private readonly usageOnly = false) {}

  add(event: { event?: string; data: string }): void {
    if (this.usageOnly && event.event !== undefined && !USAGE_EVENTS.has(event.event)) return
    const payload = parse(event.data)
    if (!payload) return
    switch (event.event ?? payload.type) {
      case 'message_start':
        this.message = { ...((payload.message as Json) ?? {}) }
        this.usageSoFar = { ...((this.message.usage as Json) ?? {}) }
        break
      case 'content_block_start':
        this.blocks.set(Number(payload.index), { ...((payload.content_block as Json) ?? {}) })
        break
      case 'content_block_delta':
        this.delta(Number(payload.index), (payload.delta ?? {}) as Json)
        break
      case 'message_delta': {
        const delta = (payload.delta ?? {}) as Json
        if (this.message) Object.assign(this.message, { stop_reason: delta.stop_reason ?? null, stop_sequence: delta.stop_sequence ?? null })
        // Cumulative totals; a null or missing field keeps the earlier value.
        for (const [k, v] of Object.entries((payload.usage as Json) ?? {})) if (v !== null && v !== undefined) this.usageSoFar[k] = v
        break
      }
      case 'error': {
        const inner = (payload.error ?? {}) as Json
        this.streamError = { ...inner, code: inner.code ?? inner.type }
        break
      }
    }
  }

  private delta(index: number, delta: Json): void {
    const block = this.blocks.get(index)
    if (!block) return
    if (delta.type === 'text_delta') block.text = String(block.text ?? '') + String(delta.text ?? '')
    else if (delta.type === 'thinking_delta') block.thinking = String(block.thinking ?? '') + String(delta.thinking ?? '')
    else if (delta.type === 'signature_delta') block.signature = delta.signature
    else if (delta.type === 'input_json_delta') this.inputJson.set(index, (this.inputJson.get(index) ?? '') + String(delta.partial_json ?? ''))
  }

  result(): unknown {
    if (!this.message) return undefined
    const content = [...this.blocks]
      .sort(([a], [b]) => a - b)
      .map(([i, block]) => {
        const json = this.inputJson.get(i)
        if (json === undefined) return block
        try {
          return { ...block, input: JSON.parse(json) }
        } catch {
          return { ...block, input: json }
        }
      })
    return { ...this.message, content, usage: { ...this.usageSoFar } }
  }

  usage(): unknown {
    return this.message || Object.keys(this.usageSoFar).length > 0 ? { ...this.usageSoFar } : undefined
  }

  error(): unknown {
    return this.streamError
  }
}

export const messagesStreamCodec: StreamCodec = {
  foldAlways: false,
  createFold: (usageOnly = false) => new MessagesStreamFold(usageOnly),
  errorFrame: (error) => namedEventFrame('error', anthropicErrorBody(error)),
}

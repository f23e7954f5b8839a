/**
 * @module Gemini `streamGenerateContent?alt=sse` → OpenAI chat chunks. Every Gemini event is a whole
 * `GenerateContentResponse` holding only the new parts, and the stream has no terminator: it ends when the
 * connection does, after the chunk with `finishReason`. Function calls arrive whole, so each becomes one tool-call
 * delta with id, name and the full arguments. An `{"error":…}` event becomes `data: {"error":…}`, and a stream
 * that closes before any finish reason is reported as interrupted rather than ended silently.
 */
import { DONE_FRAME, eventPayload, type SseEvent } from '../../../src/pipeline/sse.ts'
import { type ChatAnswerHead, chatChunkFrame, chatUsageFrame } from '../../../src/protocols/chat-wire.ts'
import { chatErrorFrame, chatStreamEndedEarly, type EventStreamTranslator, translateEventStream } from '../../../src/protocols/stream-translation.ts'
import { chatUsage, finishReason, partsOf, toolCallFor } from './response.ts'
import type { ToolCallMemory } from './tool-call-memory.ts'

type Json = Record<string, unknown>

interface CandidateState {
  nextToolIndex: number
  finished: boolean
}

export class GeminiStreamTranslator implements EventStreamTranslator {
  /** The id comes with the first event, the model from its modelVersion (the requested model until then). */
  private readonly head: ChatAnswerHead
  private usage: unknown
  private readonly candidates = new Map<number, CandidateState>()
  private started = false
  done = false

  constructor(
    private readonly includeUsage: boolean,
    requestedModel: string,
    private readonly memory: ToolCallMemory,
  ) {
    this.head = { id: '', created: Math.floor(Date.now() / 1000), model: requestedModel }
  }

  private chunk(index: number, delta: Json, finish: string | null = null): Uint8Array {
    return chatChunkFrame(this.head, index, delta, finish)
  }

  private state(index: number): CandidateState {
    let s = this.candidates.get(index)
    if (!s) this.candidates.set(index, (s = { nextToolIndex: 0, finished: false }))
    return s
  }

  /** Frames for one Gemini event. */
  translate(event: SseEvent): Uint8Array[] {
    const payload = eventPayload(event)
    if (!payload) return []
    if (payload.error) {
      this.done = true
      return [errorFrame(payload.error as Json)]
    }
    const frames: Uint8Array[] = []
    if (!this.started) {
      this.started = true
      this.head.id = `chatcmpl-${payload.responseId ?? crypto.randomUUID()}`
      if (typeof payload.modelVersion === 'string') this.head.model = payload.modelVersion
      frames.push(this.chunk(0, { role: 'assistant', content: '' }))
    }
    if (payload.usageMetadata) this.usage = payload.usageMetadata
    const candidates = (Array.isArray(payload.candidates) ? payload.candidates : []) as Json[]
    candidates.forEach((candidate, i) => {
      const index = typeof candidate.index === 'number' ? candidate.index : i
      const state = this.state(index)
      for (const part of partsOf(candidate)) {
        if (part.functionCall) {
          frames.push(this.chunk(index, { tool_calls: [{ index: state.nextToolIndex++, ...toolCallFor(part, this.memory) }] }))
        } else if (typeof part.text === 'string' && part.text !== '') {
          frames.push(this.chunk(index, part.thought === true ? { reasoning_content: part.text } : { content: part.text }))
        }
      }
      if (candidate.finishReason) {
        state.finished = true
        frames.push(this.chunk(index, {}, finishReason(candidate.finishReason, state.nextToolIndex > 0)))
      }
    })
    return frames
  }

  /** Frames after the upstream closed: usage and `[DONE]`, or an error when no candidate finished. */
  end(): Uint8Array[] {
    this.done = true
    const finished = this.candidates.size > 0 && [...this.candidates.values()].every((s) => s.finished)
    if (!finished) return [chatStreamEndedEarly()]
    const frames: Uint8Array[] = []
    if (this.includeUsage) frames.push(chatUsageFrame(this.head, chatUsage(this.usage)))
    frames.push(DONE_FRAME)
    return frames
  }
}

function errorFrame(error: Json): Uint8Array {
  return chatErrorFrame(String(error.message ?? 'The provider reported an error.'), typeof error.status === 'string' ? error.status : 'server_error')
}

export function geminiStreamToChat(body: ReadableStream<Uint8Array>, translator: GeminiStreamTranslator): ReadableStream<Uint8Array> {
  return translateEventStream(body, translator)
}

/**
 * @module Bedrock ConverseStream (AWS binary event stream) → OpenAI chat chunks, message by message as they arrive:
 * `messageStart` the role, `contentBlockStart` a tool call's id and name, `contentBlockDelta` text, tool arguments
 * and reasoning, `messageStop` the finish reason, `metadata` (which follows it) the usage; then the usage chunk when
 * asked for and `[DONE]`. An exception message (throttling, a model error) or a corrupt frame becomes
 * `data: {"error":…}`; a stream that ends before `messageStop` is reported as ended early, never as complete.
 */
import { DONE_FRAME } from '../../../src/pipeline/sse.ts'
import { type ChatAnswerHead, chatChunkFrame, chatUsageFrame } from '../../../src/protocols/chat-wire.ts'
import { chatErrorFrame, chatStreamEndedEarly, type EventStreamTranslator, translateEventStream } from '../../../src/protocols/stream-translation.ts'
import { chatUsage, finishReason } from './converse-response.ts'
import { AwsEventStreamParser, type AwsStreamMessage, loadEventStreamCodec } from '../../../src/protocols/aws-event-stream.ts'

type Json = Record<string, unknown>

export class ConverseStreamTranslator implements EventStreamTranslator<AwsStreamMessage> {
  private readonly head: ChatAnswerHead
  private readonly toolIndexByBlock = new Map<number, number>()
  private nextToolIndex = 0
  private stopped = false
  private usage: unknown
  done = false

  constructor(
    private readonly includeUsage: boolean,
    model: string,
    requestId: string | null,
  ) {
    this.head = { id: `chatcmpl-${requestId ?? crypto.randomUUID()}`, created: Math.floor(Date.now() / 1000), model }
  }

  private chunk(delta: Json, finish: string | null = null): Uint8Array {
    return chatChunkFrame(this.head, 0, delta, finish)
  }

  translate(message: AwsStreamMessage): Uint8Array[] {
    if (message.messageType !== 'event') {
      this.done = true
      const text = (message.payload?.message as string | undefined) ?? message.errorMessage ?? 'Bedrock reported an error inside the stream.'
      return [chatErrorFrame(text, message.type || 'stream_error', message.type || 'server_error')]
    }
    const payload = message.payload ?? {}
    switch (message.type) {
      case 'messageStart':
        return [this.chunk({ role: 'assistant', content: '' })]
      case 'contentBlockStart': {
        const toolUse = ((payload.start as Json | undefined)?.toolUse ?? undefined) as Json | undefined
        if (!toolUse) return []
        const index = this.nextToolIndex++
        this.toolIndexByBlock.set(Number(payload.contentBlockIndex), index)
        return [this.chunk({ tool_calls: [{ index, id: toolUse.toolUseId, type: 'function', function: { name: toolUse.name, arguments: '' } }] })]
      }
      case 'contentBlockDelta': {
        const delta = (payload.delta ?? {}) as Json
        if (typeof delta.text === 'string') return delta.text ? [this.chunk({ content: delta.text })] : []
        const toolUse = delta.toolUse as Json | undefined
        if (toolUse && typeof toolUse.input === 'string' && toolUse.input !== '') {
          const index = this.toolIndexByBlock.get(Number(payload.contentBlockIndex))
          return index === undefined ? [] : [this.chunk({ tool_calls: [{ index, function: { arguments: toolUse.input } }] })]
        }
        const reasoning = (delta.reasoningContent as Json | undefined)?.text
        if (typeof reasoning === 'string' && reasoning) return [this.chunk({ reasoning_content: reasoning })]
        return []
      }
      case 'messageStop':
        this.stopped = true
        return [this.chunk({}, finishReason(payload.stopReason))]
      case 'metadata':
        this.usage = payload.usage
        return this.stopped ? this.finish() : []
      default:
        return [] // contentBlockStop and event types added later
    }
  }

  private finish(): Uint8Array[] {
    this.done = true
    const frames: Uint8Array[] = []
    if (this.includeUsage) frames.push(chatUsageFrame(this.head, chatUsage(this.usage)))
    frames.push(DONE_FRAME)
    return frames
  }

  /** The stream closed: complete when the message stopped (the usage may be missing), else ended early. */
  end(): Uint8Array[] {
    if (this.stopped) return this.finish()
    this.done = true
    return [chatStreamEndedEarly()]
  }

  /** A frame that is not an event stream message (a wrong checksum, a cut-off message). */
  fail(error: unknown): Uint8Array[] {
    this.done = true
    return [chatErrorFrame(`The stream from Bedrock is not a valid event stream: ${(error as Error)?.message ?? String(error)}`, 'upstream_invalid_stream', 'provider_error')]
  }
}

export async function converseStreamToChat(body: ReadableStream<Uint8Array>, translator: ConverseStreamTranslator): Promise<ReadableStream<Uint8Array>> {
  return translateEventStream(body, translator, new AwsEventStreamParser(await loadEventStreamCodec()))
}

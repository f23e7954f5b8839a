/**
 * @module Bedrock InvokeModelWithResponseStream for an Anthropic model → the Anthropic Messages event stream a
 * Messages client reads. Each `chunk` event carries one Anthropic event as base64 JSON (`bytes`); it is sent on as
 * `event: <type>` + `data: <the same JSON>`, unchanged (thinking blocks, their signatures, tool input deltas and
 * Bedrock's `amazon-bedrock-invocationMetrics` included). An exception message becomes Anthropic's `error` event.
 */
import { type EventStreamTranslator, translateEventStream } from '../../../src/protocols/stream-translation.ts'
import { AwsEventStreamParser, type AwsStreamMessage, loadEventStreamCodec } from '../../../src/protocols/aws-event-stream.ts'

const encoder = new TextEncoder()

function sseFrame(type: string, json: string): Uint8Array {
  return encoder.encode(`event: ${type}\ndata: ${json}\n\n`)
}

/** Anthropic's error types for Bedrock's stream exceptions, so the Anthropic SDKs raise the right class. */
const ERROR_TYPES: Record<string, string> = {
  throttlingException: 'rate_limit_error',
  serviceUnavailableException: 'overloaded_error',
  modelStreamErrorException: 'api_error',
  internalServerException: 'api_error',
  validationException: 'invalid_request_error',
  modelTimeoutException: 'timeout_error',
}

function errorEvent(type: string, message: string): Uint8Array {
  return sseFrame('error', JSON.stringify({ type: 'error', error: { type: ERROR_TYPES[type] ?? 'api_error', message } }))
}

export class InvokeStreamTranslator implements EventStreamTranslator<AwsStreamMessage> {
  private stopped = false
  done = false

  translate(message: AwsStreamMessage): Uint8Array[] {
    if (message.messageType !== 'event') {
      this.done = true
      return [errorEvent(message.type, (message.payload?.message as string | undefined) ?? message.errorMessage ?? 'Bedrock reported an error inside the stream.')]
    }
    const bytes = message.payload?.bytes
    if (message.type !== 'chunk' || typeof bytes !== 'string') return []
    const json = Buffer.from(bytes, 'base64').toString('utf8')
    let type = 'message'
    try {
      type = String((JSON.parse(json) as { type?: unknown }).type ?? 'message')
    } catch {
      this.done = true
      return [errorEvent('modelStreamErrorException', 'Bedrock sent a stream chunk that is not JSON.')]
    }
    if (type === 'message_stop') {
      this.stopped = true
      this.done = true
    }
    return [sseFrame(type, json)]
  }

  end(): Uint8Array[] {
    this.done = true
    return this.stopped ? [] : [errorEvent('modelStreamErrorException', 'The provider ended the stream early.')]
  }

  fail(error: unknown): Uint8Array[] {
    this.done = true
    return [errorEvent('modelStreamErrorException', `The stream from Bedrock is not a valid event stream: ${(error as Error)?.message ?? String(error)}`)]
  }
}

export async function invokeStreamToMessages(body: ReadableStream<Uint8Array>): Promise<ReadableStream<Uint8Array>> {
  return translateEventStream(body, new InvokeStreamTranslator(), new AwsEventStreamParser(await loadEventStreamCodec()))
}

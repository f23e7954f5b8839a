/**
 * @module The answer of a verbatim row (the governed pass-through) on its way to the client: every byte forwarded
 * as it arrives, unchanged (no keep-alives, no error frames: a broken upstream breaks the client's stream), while the
 * usage is read on the side wherever the answer's format is known, whatever the provider: JSON answers (OpenAI chat
 * and Responses, Anthropic messages, Gemini, Bedrock Converse), their SSE streams, and AWS's binary event stream
 * (Converse's `metadata`, InvokeModel's Anthropic events). Nothing is held but a JSON answer up to a bound.
 */
import { BODY_CAPTURE_LIMIT_BYTES } from '../audit/capture-limit.ts'
import { type GatewayError, toGatewayError } from '../errors/gateway-error.ts'
import { AwsEventStreamParser, loadEventStreamCodec } from '../protocols/aws-event-stream.ts'
import type { RequestContext } from './context.ts'
import type { TokenUsage } from './snapshots.ts'
import { SseParser } from './sse.ts'
import { usageFromConverse, usageFromGemini, usageFromOpenAI } from './usage.ts'

type Json = Record<string, unknown>

export interface VerbatimEnd {
  bytesOut: number
  ttfbMs?: number
  usage?: TokenUsage
  /** A JSON answer, parsed, when it was small enough to keep (for the audit entry). */
  responseBody?: unknown
  clientAborted?: boolean
  error?: GatewayError
}

/** Largest JSON answer read for its usage (the rest passes through unread). */
const MAX_JSON_READ_BYTES = 16 * 1024 * 1024

/** Usage gathered from the events or document of one answer: the fields of every usage object seen, later ones winning. */
class UsageReader {
  private merged: Json = {}
  private kind: 'openai' | 'gemini' | 'converse' | undefined

  read(doc: unknown): void {
    if (typeof doc !== 'object' || doc === null) return
    const d = doc as Json
    if (d.usageMetadata) return this.merge('gemini', d.usageMetadata)
    const message = d.message as Json | undefined
    const response = d.response as Json | undefined
    const usage = d.usage ?? message?.usage ?? response?.usage
    if (typeof usage !== 'object' || usage === null) return
    this.merge('inputTokens' in usage ? 'converse' : 'openai', usage)
  }

  private merge(kind: UsageReader['kind'], usage: unknown): void {
    this.kind = kind
    for (const [key, value] of Object.entries(usage as Json)) if (value !== null && value !== undefined) this.merged[key] = value
  }

  usage(): TokenUsage | undefined {
    if (this.kind === undefined) return undefined
    if (this.kind === 'gemini') return usageFromGemini(this.merged)
    if (this.kind === 'converse') return usageFromConverse(this.merged)
    return usageFromOpenAI(this.merged)
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

type Tap = { push(chunk: Uint8Array): void; end(): Pick<VerbatimEnd, 'usage' | 'responseBody'> }

async function tapFor(contentType: string, keepJson: boolean): Promise<Tap> {
  const usage = new UsageReader()
  if (contentType.startsWith('text/event-stream')) {
    const parser = new SseParser()
    const read = (events: ReturnType<SseParser['push']>) => {
      for (const event of events) if (event.data && event.data !== '[DONE]') usage.read(parse(event.data))
    }
    return { push: (chunk) => read(parser.push(chunk)), end: () => (read(parser.end()), { usage: usage.usage() }) }
  }
  if (contentType.startsWith('application/vnd.amazon.eventstream')) {
    const parser = new AwsEventStreamParser(await loadEventStreamCodec())
    let broken = false
    const read = (push: () => ReturnType<AwsEventStreamParser['push']>) => {
      if (broken) return
      try {
        for (const message of push()) {
          const bytes = message.payload?.bytes
          // InvokeModel streams carry the model's own events as base64; Converse streams carry usage in `metadata`.
          usage.read(typeof bytes === 'string' ? parse(Buffer.from(bytes, 'base64').toString('utf8')) : message.payload)
        }
      } catch {
        broken = true // the client gets the bytes as they are; only the usage is lost
      }
    }
    return { push: (chunk) => read(() => parser.push(chunk)), end: () => (read(() => parser.end()), { usage: usage.usage() }) }
  }
  if (contentType.includes('json')) {
    const chunks: Uint8Array[] = []
    let size = 0
    return {
      push(chunk) {
        size += chunk.byteLength
        if (size <= MAX_JSON_READ_BYTES) chunks.push(chunk)
      },
      end() {
        if (size > MAX_JSON_READ_BYTES) return {}
        const doc = parse(Buffer.concat(chunks).toString('utf8'))
        usage.read(doc)
        return { usage: usage.usage(), responseBody: keepJson && size <= BODY_CAPTURE_LIMIT_BYTES ? doc : undefined }
      },
    }
  }
  return { push() {}, end: () => ({}) }
}

/** The client's copy of the answer's body; `done` is called once, when it ended, broke or was cancelled. */
export async function verbatimBody(ctx: RequestContext, response: Response, done: (end: VerbatimEnd) => void): Promise<ReadableStream<Uint8Array>> {
  const reader = response.body!.getReader()
  const tap = await tapFor(response.headers.get('content-type') ?? '', ctx.capture.responseBody)
  const end: VerbatimEnd = { bytesOut: 0 }
  let ended = false
  const finish = (extra: Partial<VerbatimEnd>) => {
    if (ended) return
    ended = true
    Object.assign(end, extra)
    if (!end.error && response.status < 300) Object.assign(end, tap.end())
    done(end)
  }
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done: finished, value } = await reader.read()
        if (finished) {
          controller.close()
          return finish({})
        }
        const refused = ctx.streamStillAllowed?.()
        if (refused) {
          reader.cancel(refused).catch(() => {})
          throw refused
        }
        end.ttfbMs ??= ctx.elapsedNs() / 1e6
        end.bytesOut += value.byteLength
        tap.push(value)
        controller.enqueue(value)
      } catch (error) {
        const failure = toGatewayError(error)
        finish({ error: failure })
        controller.error(failure)
      }
    },
    cancel(reason) {
      finish({ clientAborted: true })
      return reader.cancel(reason).catch(() => {})
    },
  })
}

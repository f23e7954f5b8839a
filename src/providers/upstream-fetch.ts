/**
 * @module The one way adapters call an upstream: a fetch with a time-to-first-byte timer and an idle timer
 * between body chunks (a whole-request AbortSignal.timeout would cut long streams), the client's disconnect
 * passed on, one AttemptSnapshot recorded per call, and every expected failure (a non-2xx answer, a timeout, an
 * unreachable host, an unreadable or too-large answer) returned as a GatewayError rather than thrown.
 */
import type { GatewayError } from '../errors/gateway-error.ts'
import { traceUpstreamAttempt } from '../observability/trace-context.ts'
import { redactHeaders } from '../pipeline/headers.ts'
import type { AttemptSnapshot } from '../pipeline/snapshots.ts'
import type { AdapterCall, UpstreamResult } from './types.ts'
import { scrubSecrets, upstreamError, upstreamFailures } from './upstream-errors.ts'
import { isEventStream } from '../pipeline/sse.ts'
import { jsonAnswer, parseJsonOrUndefined } from '../pipeline/json-answer.ts'
import { clearDeadline, type Deadline, deadlines } from '../pipeline/deadlines.ts'
import type { UpstreamUrl } from './upstream-url.ts'
import { authorize } from './upstream-auth.ts'

export interface UpstreamHttpRequest {
  /** Made by `upstreamUrl` (src/providers/upstream-url.ts): under the provider's base path. */
  url: UpstreamUrl
  method?: string
  headers: Record<string, string>
  /** A stream is sent as it is read (an upload: src/http/multipart-upload.ts); it can be sent once. */
  body?: string | Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array>
  /**
   * The answer whatever its status, its body streamed through as it comes (within the deadlines), never read or
   * parsed here: the pass-through's. A non-2xx status still marks the attempt failed; a redirect is still refused.
   */
  verbatim?: boolean
  /** A successful answer that is not JSON is bytes (audio): streamed through as it comes, never read whole. */
  binaryAnswer?: boolean
  /**
   * A successful `text/*` answer is the answer (a transcript as text, SRT or WebVTT): read whole within the size
   * limit like JSON and passed on as text, with its content type. Any other non-JSON answer is still unreadable.
   */
  textAnswer?: boolean
  /** Reads a non-2xx body into a GatewayError; defaults to the OpenAI error shape. */
  toError?: (status: number, body: unknown, text: string, headers: Headers) => GatewayError
}

/** One upstream call whose headers arrived: what reading its body needs. */
interface InFlight {
  call: AdapterCall
  attempt: AttemptSnapshot
  t0: number
  abort: AbortController
  firstByte: Deadline
  /** Clears the first-byte deadline and stops listening for the client going away. */
  release: () => void
}

class UpstreamTimeout extends Error {
  constructor(readonly what: string) {
    super(what)
  }
}

export async function fetchUpstream(call: AdapterCall, request: UpstreamHttpRequest): Promise<UpstreamResult> {
  const { ctx, provider, target, limits } = call
  const attempt: AttemptSnapshot = {
    seq: ctx.attempts.length + 1,
    kind: call.attemptKind,
    model: target.model,
    provider_name: provider.name,
    provider_type: provider.type,
    started_at: new Date().toISOString(),
    duration_ns: 0,
    success: false,
    status_code: 0,
  }
  ctx.attempts.push(attempt)
  // A traced request's attempt gets a span of its own, and the upstream its `traceparent`.
  const endSpan = traceUpstreamAttempt(ctx, attempt, request.headers)
  const t0 = Bun.nanoseconds()
  const abort = new AbortController()
  // The signal's reason is a GatewayError when the gateway itself ends the request (drain deadline).
  const onClientGone = () => {
    const reason = ctx.abortReason
    abort.abort(isGatewayError(reason) ? reason : upstreamFailures.clientClosed())
  }
  if (ctx.aborted) onClientGone()
  const clientListener = ctx.onAbort(onClientGone)
  const firstByte = deadlines(limits.ttfbMs).start(() => abort.abort(new UpstreamTimeout(`no first byte within ${limits.ttfbMs} ms`)))
  const release = () => {
    clearDeadline(firstByte)
    ctx.offAbort(clientListener)
    endSpan?.()
  }

  let headers = request.headers
  if (provider.auth) {
    // A cloud credential (a SigV4 signature over this exact request, or a bearer token), or why there is none.
    // A streamed upload is signed as no body: only bearer credentials (Azure's Entra ID) serve the upload rows' providers.
    const signedBody = request.body instanceof ReadableStream ? undefined : request.body
    const authorized = await authorize(provider.auth, { method: request.method ?? 'POST', url: request.url, headers, body: signedBody })
    if (isGatewayError(authorized)) {
      release()
      return failAttempt(attempt, t0, authorized)
    }
    headers = authorized
  }

  let response: Response
  try {
    response = await fetch(request.url, {
      method: request.method ?? 'POST',
      headers,
      body: request.body,
      signal: abort.signal,
      // Never followed: see upstreamFailures.redirected.
      redirect: 'manual',
    })
  } catch (error) {
    release()
    return failAttempt(attempt, t0, toFetchFailure(provider.name, abort.signal.reason ?? error))
  }
  attempt.status_code = response.status

  if (isRedirect(response.status)) {
    response.body?.cancel().catch(() => {})
    release()
    if (ctx.capture.headers) attempt.response_headers = scrubbedHeaders(response.headers, limits.secrets)
    return failAttempt(attempt, t0, upstreamFailures.redirected(provider.name, response.status))
  }
  if (request.verbatim) return passedThrough(response, { call, attempt, t0, abort, firstByte, release })
  if (!response.ok) {
    let text = ''
    try {
      // An error body is only read for its message: a few KiB say it; a 100 MB one must not be read whole.
      text = (await readBounded(response, ERROR_BODY_LIMIT_BYTES)).text
    } catch {
      // the body broke off; the status alone still tells what happened
    }
    release()
    const body = parseJsonOrUndefined(text)
    const toError = request.toError ?? ((status, b, t, h) => upstreamError({ provider: provider.name, status, body: b, text: t, headers: h, secrets: limits.secrets }))
    const error = toError(response.status, body, text, response.headers)
    // An upstream may echo the credential it was sent (in its message, its body, a header): scrubbed by value.
    if (ctx.capture.bodies) attempt.response_body = scrubbedBody(body, text, limits.secrets)
    if (ctx.capture.headers) attempt.response_headers = scrubbedHeaders(response.headers, limits.secrets)
    return failAttempt(attempt, t0, error)
  }

  if (ctx.capture.headers) attempt.response_headers = scrubbedHeaders(response.headers, limits.secrets)
  attempt.success = true
  attempt.duration_ns = Bun.nanoseconds() - t0
  // `response.body` is touched only for a stream: on a whole answer it would make a ReadableStream per request that
  // the native text() read then goes through. Fetch gives a null body exactly for the null-body statuses.
  if (NULL_BODY_STATUSES.has(response.status)) {
    release()
    return response
  }
  const inFlight: InFlight = { call, attempt, t0, abort, firstByte, release }
  const binary = isBinaryEventStream(response) || (request.binaryAnswer === true && !isEventStream(response) && !isJsonAnswer(response))
  if ((!binary && !isEventStream(response)) || !response.body) return readWhole(response, inFlight, request.textAnswer === true && isTextAnswer(response))
  return new Response(watchBody(response.body, inFlight, binary ? BINARY_FRAMING : new SseFraming()), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  })
}

function isJsonAnswer(response: Response): boolean {
  return (response.headers.get('content-type') ?? '').includes('json')
}

function isTextAnswer(response: Response): boolean {
  return (response.headers.get('content-type') ?? '').trimStart().toLowerCase().startsWith('text/')
}

/** The answer as it came: the attempt records its status (a non-2xx one as the attempt's error), the body streams through. */
function passedThrough(response: Response, inFlight: InFlight): Response {
  const { call, attempt, t0, release } = inFlight
  if (call.ctx.capture.headers) attempt.response_headers = scrubbedHeaders(response.headers, call.limits.secrets)
  attempt.success = response.ok
  if (!response.ok) {
    attempt.error_code = `upstream_http_${response.status}`
    attempt.error_type = 'provider_error'
    attempt.error_message = `The provider answered HTTP ${response.status}; its answer was passed through.`
  }
  attempt.duration_ns = Bun.nanoseconds() - t0
  if (!response.body || NULL_BODY_STATUSES.has(response.status)) {
    release()
    return response
  }
  return new Response(watchBody(response.body, inFlight, BINARY_FRAMING), { status: response.status, statusText: response.statusText, headers: response.headers })
}

/**
 * A non-stream answer is read natively in one go (far cheaper than pumping it through a JS stream), within the
 * idle deadline once its headers arrived.
 */
async function readWhole(response: Response, { call, attempt, t0, abort, firstByte, release }: InFlight, asText = false): Promise<UpstreamResult> {
  clearDeadline(firstByte)
  const idle = deadlines(call.limits.idleMs).start(() => abort.abort(new UpstreamTimeout(`the answer did not arrive within ${call.limits.idleMs} ms of its headers`)))
  try {
    // A declared length within the bound is read natively right here (readBounded's first case, without its
    // async frame: this runs on every non-stream request).
    const { text, truncated } = fitsDeclared(response, call.limits.maxResponseBytes)
      ? { text: await response.text(), truncated: false }
      : await readBounded(response, call.limits.maxResponseBytes, false)
    attempt.duration_ns = Bun.nanoseconds() - t0
    if (truncated) return failAttempt(attempt, t0, upstreamFailures.tooLarge(call.provider.name, call.limits.maxResponseBytes))
    if (asText) return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers })
    // Every endpoint behind this call answers JSON; anything else (an HTML page from a proxy, a cut-off body) is
    // the provider's failure, not a success to pass on.
    const parsed = parseJsonOrUndefined(text)
    if (parsed === undefined) return failAttempt(attempt, t0, upstreamFailures.unreadable(call.provider.name, describeText(text)))
    return jsonAnswer(text, parsed, { status: response.status, statusText: response.statusText, headers: response.headers })
  } catch (error) {
    // Reading rejects when a deadline aborts it or the connection breaks: both are the upstream's failure.
    return failAttempt(attempt, t0, toFetchFailure(call.provider.name, abort.signal.reason ?? error))
  } finally {
    clearDeadline(idle)
    release()
  }
}

/**
 * Re-emits the upstream body while enforcing the first-byte and idle deadlines. A deadline, a broken connection
 * or broken framing errors the stream with a GatewayError (a stream's only way to report a failure after its
 * headers), which the pipeline turns into a well-formed error frame.
 */
function watchBody(body: ReadableStream<Uint8Array>, { call, attempt, t0, abort, firstByte, release }: InFlight, framing: StreamFraming): ReadableStream<Uint8Array> {
  const reader = body.getReader()
  const { limits, provider } = call
  let idleTimer: ReturnType<typeof setTimeout> | undefined
  let finished = false
  const finish = () => {
    if (finished) return
    finished = true
    clearTimeout(idleTimer)
    release()
    attempt.duration_ns = Bun.nanoseconds() - t0
  }
  const fail = (controller: ReadableStreamDefaultController<Uint8Array>, failure: GatewayError) => {
    failAttempt(attempt, t0, failure)
    finish()
    controller.error(failure)
  }
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let next: Awaited<ReturnType<typeof reader.read>>
      try {
        next = await reader.read()
      } catch (error) {
        // A deadline aborted the read (the abort reason says which), or the connection broke.
        return fail(controller, toFetchFailure(provider.name, abort.signal.reason ?? error, upstreamFailures.interrupted))
      }
      if (next.done) {
        if (!framing.endsBetweenEvents()) return fail(controller, upstreamFailures.brokenStream(provider.name, 'it ended in the middle of an event'))
        finish()
        controller.close()
        return
      }
      const problem = framing.check(next.value)
      if (problem) {
        reader.cancel().catch(() => {})
        return fail(controller, upstreamFailures.brokenStream(provider.name, problem))
      }
      if (idleTimer === undefined) {
        clearDeadline(firstByte)
        idleTimer = setTimeout(() => abort.abort(new UpstreamTimeout(`no data for ${limits.idleMs} ms`)), limits.idleMs)
      } else idleTimer.refresh()
      controller.enqueue(next.value)
    },
    cancel(reason) {
      finish()
      abort.abort(reason)
      return reader.cancel(reason).catch(() => {})
    },
  })
}

/** A stored copy of an upstream body with every known credential (and anything shaped like one) replaced. */
function scrubbedBody(body: unknown, text: string, secrets: readonly string[]): unknown {
  if (body === undefined) return scrubSecrets(text, secrets)
  const json = JSON.stringify(body)
  const scrubbed = scrubSecrets(json, secrets)
  if (scrubbed === json) return body
  try {
    return JSON.parse(scrubbed)
  } catch {
    return scrubbed // a pattern replacement ran across a closing quote: keep the scrubbed text
  }
}

function scrubbedHeaders(headers: Headers, secrets: readonly string[]): Record<string, string> {
  const out = redactHeaders(headers)
  for (const key in out) out[key] = scrubSecrets(out[key]!, secrets)
  return out
}

/** A 3xx answer: with `redirect: 'manual'` fetch hands it back instead of following it. */
export function isRedirect(status: number): boolean {
  return status >= 300 && status < 400
}

/** Statuses whose responses have no body (Fetch standard, "null body status"). */
const NULL_BODY_STATUSES: ReadonlySet<number> = new Set([101, 103, 204, 205, 304])

/** Longest upstream error body read (the message is in the first bytes; the rest is cancelled). */
const ERROR_BODY_LIMIT_BYTES = 64 * 1024

/**
 * With a declared length within the bound and no compression (fetch would inflate it past the length), the native
 * whole-body read (a third of the CPU of a JavaScript reader's chunk loop) cannot read more than the bound.
 */
function fitsDeclared(response: Response, maxBytes: number): boolean {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN)
  return declared <= maxBytes && !response.headers.has('content-encoding')
}

/** Reads a body as text up to `maxBytes`; the rest is cancelled, not read. */
export async function readBounded(response: Response, maxBytes: number, keepTruncated = true): Promise<{ text: string; truncated: boolean }> {
  if (!response.body) return { text: '', truncated: false }
  if (fitsDeclared(response, maxBytes)) return { text: await response.text(), truncated: false }
  const reader = response.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    if (size + value.byteLength > maxBytes) {
      reader.cancel().catch(() => {})
      if (!keepTruncated) return { text: '', truncated: true }
      chunks.push(value.subarray(0, maxBytes - size))
      return { text: Buffer.concat(chunks).toString('utf8'), truncated: true }
    }
    size += value.byteLength
    chunks.push(value)
  }
  return {
    text: chunks.length === 1 ? Buffer.from(chunks[0]!.buffer, chunks[0]!.byteOffset, chunks[0]!.byteLength).toString('utf8') : Buffer.concat(chunks).toString('utf8'),
    truncated: false,
  }
}

function describeText(text: string): string {
  const start = text.trim().slice(0, 60)
  return start ? `it starts with ${JSON.stringify(start)}` : 'it is empty'
}

interface StreamFraming {
  /** A description of what is wrong with this chunk, or undefined. */
  check(chunk: Uint8Array): string | undefined
  endsBetweenEvents(): boolean
}

/**
 * AWS's binary event stream (`application/vnd.amazon.eventstream`, Bedrock's streaming APIs) is passed on as bytes:
 * its framing (lengths and CRC32 checksums) is checked by the adapter's decoder, which knows where messages end.
 */
const BINARY_FRAMING: StreamFraming = { check: () => undefined, endsBetweenEvents: () => true }

export function isBinaryEventStream(response: Response): boolean {
  return response.headers.get('content-type')?.startsWith('application/vnd.amazon.eventstream') === true
}

/**
 * Checks the framing of an upstream event stream as it passes: text (valid UTF-8, no NUL bytes), and an end
 * between two events. Anything else is the upstream's failure; the pipeline ends the client's stream with an
 * error frame instead of passing junk on or ending as if complete.
 */
class SseFraming implements StreamFraming {
  private readonly decoder = new TextDecoder('utf-8', { fatal: true })
  /** The last bytes seen, to tell whether the stream stopped at an event boundary. */
  private tail = ''
  private seen = false

  /** A description of what is wrong with this chunk, or undefined. */
  check(chunk: Uint8Array): string | undefined {
    let text: string
    try {
      text = this.decoder.decode(chunk, { stream: true })
    } catch {
      return 'it carries bytes that are not UTF-8 text'
    }
    if (text.includes('\0')) return 'it carries NUL bytes'
    if (text) {
      this.seen = true
      this.tail = (this.tail + text).slice(-4)
    }
    return undefined
  }

  endsBetweenEvents(): boolean {
    return !this.seen || /(\r\n|\n|\r)(\r\n|\n|\r)$/.test(this.tail) || /^\s*$/.test(this.tail)
  }
}

function failAttempt(attempt: AttemptSnapshot, t0: number, error: GatewayError): GatewayError {
  attempt.duration_ns = Bun.nanoseconds() - t0
  attempt.success = false
  attempt.error_code = error.code ?? undefined
  attempt.error_message = error.message
  attempt.error_type = error.type
  if (!attempt.status_code) attempt.status_code = error.status
  return error
}

/** A deadline, the gateway's own GatewayError (client gone, drain), or else a broken connection (`broke`). */
function toFetchFailure(provider: string, reason: unknown, broke = upstreamFailures.unreachable): GatewayError {
  if (reason instanceof UpstreamTimeout) return upstreamFailures.timeout(provider, reason.what)
  if (isGatewayError(reason)) return reason
  return broke(provider, (reason as Error)?.message ?? String(reason))
}

function isGatewayError(value: unknown): value is GatewayError {
  return value instanceof Error && value.name === 'GatewayError'
}

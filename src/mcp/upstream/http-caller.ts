/**
 * @module The hot path of a call to a Streamable HTTP server: one POST on the session the SDK's client opened
 * (./connection.ts keeps that client for the handshake, the lists and the health pings), answered as JSON or as an
 * event stream, read here directly. The SDK's request path costs a validation of every message, a promise chain,
 * a timer and a transport round per call; this is one fetch (pooled keep-alive connections) and one JSON parse.
 *
 * On the answer's event stream, besides the answer: the server's progress and log notifications about the call go
 * to the call's relay (./call-relay.ts), its requests about the call (sampling, elicitation) are asked of the relay
 * and the answer POSTed back on the session, and anything else (`list_changed`) goes to `onNotification`. Ids are
 * strings (`g<n>`) so they never meet the SDK client's numeric ids on the same session. Every answer is read
 * within `maxResponseBytes` (an event stream per event); redirects are refused. A per-user OAuth server gets the
 * owner's current access token; its 401 hands the call to the SDK's path, which refreshes the token.
 */
import { clearDeadline, deadlines } from '../../pipeline/deadlines.ts'
import { SseParser } from '../../pipeline/sse.ts'
import { RPC, type RpcErrorObject } from '../errors.ts'
import { readWithin, UpstreamRedirected, UpstreamResponseTooLarge } from './bounded-fetch.ts'
import type { CallRelay, RelayedAnswer } from './call-relay.ts'

export type HttpCallOutcome =
  | { kind: 'result'; result: Record<string, unknown> }
  | { kind: 'rpc_error'; error: RpcErrorObject }
  /** 404 on a session: the server forgot it (it restarted); nothing ran. */
  | { kind: 'session_gone' }
  /** 401 with a per-user token: nothing ran; the SDK's path refreshes the token. */
  | { kind: 'unauthorized' }
  | { kind: 'failed'; error: unknown }

export interface HttpCallerOptions {
  url: string
  headers: Record<string, string> | undefined
  sessionId: string | undefined
  protocolVersion: string | undefined
  maxResponseBytes: number
  /** A notification of the server's that is not about a call (`notifications/tools/list_changed`). */
  onNotification: (method: string) => void
  /** A per-user OAuth server's: the owner's current access token, sent as a bearer token. */
  accessToken?: () => Promise<string | undefined>
}

type Message = { id?: unknown; method?: unknown; params?: unknown; result?: unknown; error?: unknown }

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

export class StreamableHttpCaller {
  private nextId = 0
  private readonly headers: Record<string, string>

  constructor(private readonly options: HttpCallerOptions) {
    this.headers = { ...options.headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
    if (options.sessionId) this.headers['mcp-session-id'] = options.sessionId
    if (options.protocolVersion) this.headers['mcp-protocol-version'] = options.protocolVersion
  }

  async call(method: string, params: Record<string, unknown>, signal: AbortSignal, relay?: CallRelay): Promise<HttpCallOutcome> {
    const id = `g${++this.nextId}`
    const sent = relay?.progress ? { ...params, _meta: { ...(params._meta as object | undefined), progressToken: id } } : params
    try {
      const response = await fetch(this.options.url, {
        method: 'POST',
        // Without a per-user token the headers are the same on every call: no await for them.
        headers: this.options.accessToken ? await this.headersNow() : this.headers,
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params: sent }),
        signal,
        redirect: 'manual',
      })
      return await this.read(response, id, signal, relay)
    } catch (error) {
      if (signal.aborted) this.post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'cancelled by the gateway' } })
      return { kind: 'failed', error }
    }
  }

  private async headersNow(): Promise<Record<string, string>> {
    if (!this.options.accessToken) return this.headers
    const token = await this.options.accessToken()
    return token ? { ...this.headers, authorization: `Bearer ${token}` } : this.headers
  }

  private async read(response: Response, id: string, signal: AbortSignal, relay: CallRelay | undefined): Promise<HttpCallOutcome> {
    const max = this.options.maxResponseBytes
    if (response.status === 404 && this.options.sessionId) {
      await response.body?.cancel().catch(() => {})
      return { kind: 'session_gone' }
    }
    if (response.status === 401 && this.options.accessToken) {
      await response.body?.cancel().catch(() => {})
      return { kind: 'unauthorized' }
    }
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel().catch(() => {})
      return { kind: 'failed', error: new UpstreamRedirected(response.status) }
    }
    if (Number(response.headers.get('content-length') ?? 0) > max) {
      await response.body?.cancel().catch(() => {})
      return { kind: 'failed', error: new UpstreamResponseTooLarge(max) }
    }
    const type = response.headers.get('content-type') ?? ''
    if (response.ok && type.startsWith('text/event-stream') && response.body) return this.readStream(response.body, id, signal, relay)
    const text = response.body ? decoder.decode(await readWithin(response.body, max)) : ''
    const message = parse(text)
    if (message && message.id === id) return outcomeOf(message)
    // A JSON-RPC error about the exchange (id null: a bad request, an unknown session id format).
    if (message && isObject(message.error) && message.id === null) return outcomeOf(message)
    return { kind: 'failed', error: new Error(response.ok ? 'the server answered something other than the answer to the call' : `HTTP ${response.status}`) }
  }

  private async readStream(body: ReadableStream<Uint8Array>, id: string, signal: AbortSignal, relay: CallRelay | undefined): Promise<HttpCallOutcome> {
    const max = this.options.maxResponseBytes
    const reader = body.getReader()
    let parser: SseParser | undefined
    let sinceEvent = 0
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) return { kind: 'failed', error: new Error('the server ended its event stream before answering the call') }
        sinceEvent += value.byteLength
        if (sinceEvent > max) throw new UpstreamResponseTooLarge(max)
        if (!parser) {
          // The usual answer: its first read is one whole event, the call's answer; no parser for it.
          const message = parse(soleEventData(value) ?? '')
          if (message && message.id === id && message.method === undefined) {
            void drain(reader)
            return outcomeOf(message)
          }
          parser = new SseParser()
        }
        for (const event of parser.push(value)) {
          sinceEvent = 0
          const message = parse(event.data)
          if (!message) continue
          if (typeof message.method === 'string') this.fromServer(message, id, signal, relay)
          else if (message.id === id) {
            void drain(reader)
            return outcomeOf(message)
          }
        }
      }
    } catch (error) {
      void reader.cancel().catch(() => {})
      throw error
    }
  }

  /** A message of the server's on a call's stream: a notification or a request. */
  private fromServer(message: Message, callId: string, signal: AbortSignal, relay: CallRelay | undefined): void {
    const method = message.method as string
    const params = isObject(message.params) ? message.params : {}
    if (message.id === undefined) {
      if (method === 'notifications/progress') {
        if (params.progressToken === callId && relay?.progress) {
          const { progressToken: _, ...progress } = params
          relay.progress(progress)
        }
      } else if (relay && method === 'notifications/message') relay.notify(method, params)
      else this.options.onNotification(method)
      return
    }
    const requestId = message.id
    void this.answerServer(method, params, signal, relay).then((answer) => this.post({ jsonrpc: '2.0', id: requestId, ...answer }))
  }

  private async answerServer(method: string, params: Record<string, unknown>, signal: AbortSignal, relay: CallRelay | undefined): Promise<RelayedAnswer> {
    if (method === 'ping') return { result: {} }
    if (!relay) return { error: { code: RPC.methodNotFound, message: `The AI gateway cannot relay ${method} for this call.` } }
    try {
      return await relay.ask(method, params, signal)
    } catch {
      return { error: { code: RPC.internalError, message: `The AI gateway could not relay ${method}.` } }
    }
  }

  /** A message to the server on the session (a notification, an answer to its request); its reply is not awaited. */
  private post(message: Record<string, unknown>): void {
    this.headersNow()
      .then((headers) => fetch(this.options.url, { method: 'POST', headers, body: JSON.stringify(message), redirect: 'manual' }))
      .then((response) => response.body?.cancel())
      .catch(() => {})
  }
}

const DRAIN_MS = 2_000

/**
 * Reads what follows the answer (the stream's end, normally at once) so the connection goes back to the pool
 * instead of being cut; a stream the server keeps open is cancelled after a while.
 */
async function drain(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  const deadline = deadlines(DRAIN_MS).start(() => void reader.cancel().catch(() => {}))
  try {
    while (!(await reader.read()).done) {}
  } catch {
    // cancelled or cut: the connection is not reused
  } finally {
    clearDeadline(deadline)
  }
}

const decoder = new TextDecoder()
const LF = 10

/**
 * The data of the one event `chunk` holds, when it is exactly one whole event with a single `data` line (no CR, no
 * second event); otherwise undefined, and the event stream parser reads it. The chunk is a stream's first read, so
 * it ends no UTF-8 character halfway once it ends with the blank line.
 */
export function soleEventData(chunk: Uint8Array): string | undefined {
  const n = chunk.byteLength
  if (n < 7 || chunk[n - 1] !== LF || chunk[n - 2] !== LF) return undefined
  const text = decoder.decode(chunk)
  const end = text.length - 2
  if (text.indexOf('\n\n') !== end || text.includes('\r')) return undefined
  const start = text.startsWith('data:') ? 0 : text.indexOf('\ndata:') + 1
  if (start === 0 && !text.startsWith('data:')) return undefined
  const lineEnd = text.indexOf('\n', start)
  // A second data line (the data is their join) is the parser's to read.
  if (text.indexOf('\ndata:', lineEnd) !== -1) return undefined
  const valueStart = text.charCodeAt(start + 5) === 32 ? start + 6 : start + 5
  return text.slice(valueStart, lineEnd)
}

function parse(text: string): Message | undefined {
  if (!text) return undefined
  try {
    const value: unknown = JSON.parse(text)
    return isObject(value) ? value : undefined
  } catch {
    return undefined
  }
}

function outcomeOf(message: Message): HttpCallOutcome {
  if (isObject(message.error)) {
    const e = message.error
    return { kind: 'rpc_error', error: { code: typeof e.code === 'number' ? e.code : RPC.internalError, message: typeof e.message === 'string' ? e.message : '', data: e.data } }
  }
  if (isObject(message.result)) return { kind: 'result', result: message.result }
  return { kind: 'failed', error: new Error('the server answered the call without a result') }
}

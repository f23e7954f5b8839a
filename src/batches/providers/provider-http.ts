/**
 * @module How a batch adapter talks to its provider outside any client request (submitting, polling, downloading,
 * cancelling): the URL made by `upstreamUrl`, the instance's cloud credentials applied as `fetchUpstream` applies
 * them, redirects refused, a deadline on the answer's headers, and every failure (a non-2xx answer, a timeout, an
 * unreachable host, an unreadable body) returned as a GatewayError naming the provider, with the provider's
 * credentials scrubbed from its message. Bodies are read bounded, and result files line by line as they arrive.
 */
import { GatewayError } from '../../errors/gateway-error.ts'
import type { ProviderInstance } from '../../providers/types.ts'
import { authorize } from '../../providers/upstream-auth.ts'
import { upstreamError, upstreamFailures } from '../../providers/upstream-errors.ts'
import type { UpstreamUrl } from '../../providers/upstream-url.ts'
import { readBounded } from '../../providers/upstream-fetch.ts'

export interface BatchUpstreamRequest {
  url: UpstreamUrl
  method: 'GET' | 'POST' | 'DELETE'
  headers: Record<string, string>
  /** A stream is sent as it is read (the JSONL upload). */
  body?: string | ReadableStream<Uint8Array>
}

/** Until the answer's headers arrive. */
const HEADERS_DEADLINE_MS = 120_000
/** The longest error body read for its message. */
const ERROR_BODY_LIMIT_BYTES = 64 * 1024

/** The provider's answer (2xx), or why there is none. */
export async function fetchBatchUpstream(provider: ProviderInstance, request: BatchUpstreamRequest, signal: AbortSignal): Promise<Response | GatewayError> {
  let headers = request.headers
  if (provider.auth) {
    const body = typeof request.body === 'string' ? request.body : undefined
    const authorized = await authorize(provider.auth, { method: request.method, url: request.url, headers, body })
    if (authorized instanceof GatewayError) return authorized
    headers = authorized
  }
  // The deadline bounds the wait for the headers only; the caller's signal bounds the whole call, body included
  // (a result file that stalls mid-way ends when it fires).
  const headersDeadline = new AbortController()
  const timer = setTimeout(() => headersDeadline.abort(), HEADERS_DEADLINE_MS)
  let response: Response
  try {
    // Never followed: a redirect would carry the provider's credential wherever it points (upstreamFailures.redirected).
    response = await fetch(request.url, {
      method: request.method,
      headers,
      body: request.body,
      signal: AbortSignal.any([signal, headersDeadline.signal]),
      redirect: 'manual',
    })
  } catch (error) {
    if (signal.aborted) return stopped(provider, signal)
    if (headersDeadline.signal.aborted) return upstreamFailures.timeout(provider.name, `no answer within ${HEADERS_DEADLINE_MS} ms`)
    return upstreamFailures.unreachable(provider.name, (error as Error)?.message ?? String(error))
  } finally {
    clearTimeout(timer)
  }
  if (response.status >= 300 && response.status < 400) {
    response.body?.cancel().catch(() => {})
    return upstreamFailures.redirected(provider.name, response.status)
  }
  if (!response.ok) {
    const text = await readBounded(response, ERROR_BODY_LIMIT_BYTES).then(
      (read) => read.text,
      () => '',
    )
    return upstreamError({ provider: provider.name, status: response.status, body: parseJson(text), text, headers: response.headers, secrets: secretsOf(provider) })
  }
  return response
}

/** The caller stopped the call: its deadline passed, or the gateway is shutting down. */
function stopped(provider: ProviderInstance, signal: AbortSignal): GatewayError {
  const reason = signal.reason as Error | undefined
  return reason?.name === 'TimeoutError'
    ? upstreamFailures.timeout(provider.name, 'the call took longer than the gateway allows it')
    : upstreamFailures.interrupted(provider.name, 'the gateway stopped the call')
}

/** A JSON answer read whole up to `maxBytes`; anything else is the provider's failure. */
export async function readJsonAnswer(provider: ProviderInstance, response: Response, maxBytes: number): Promise<Record<string, unknown> | GatewayError> {
  let read: { text: string; truncated: boolean }
  try {
    read = await readBounded(response, maxBytes, false)
  } catch (error) {
    return upstreamFailures.interrupted(provider.name, (error as Error)?.message ?? String(error))
  }
  if (read.truncated) return upstreamFailures.tooLarge(provider.name, maxBytes)
  const parsed = parseJson(read.text)
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return upstreamFailures.notJson(provider.name)
  return parsed as Record<string, unknown>
}

/** A JSON call whose answer is an object: the request, then its body. */
export async function callJson(
  provider: ProviderInstance,
  request: BatchUpstreamRequest,
  signal: AbortSignal,
  maxBytes = CONTROL_ANSWER_LIMIT_BYTES,
): Promise<Record<string, unknown> | GatewayError> {
  const response = await fetchBatchUpstream(provider, request, signal)
  if (response instanceof GatewayError) return response
  return readJsonAnswer(provider, response, maxBytes)
}

/** A batch object, a file object: a few KiB. */
export const CONTROL_ANSWER_LIMIT_BYTES = 4 * 1024 * 1024

/**
 * The lines of a JSONL body as they arrive, each parsed (blank lines skipped); a line that is not a JSON object
 * ends the reading with the provider's failure. One line is held at a time, never the file.
 */
export async function* jsonLines(provider: ProviderInstance, body: ReadableStream<Uint8Array> | null): AsyncGenerator<Record<string, unknown> | GatewayError> {
  if (!body) return
  const decoder = new TextDecoder()
  let pending = ''
  const reader = body.getReader()
  try {
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>
      try {
        chunk = await reader.read()
      } catch (error) {
        yield upstreamFailures.interrupted(provider.name, (error as Error)?.message ?? String(error))
        return
      }
      pending += chunk.done ? decoder.decode() : decoder.decode(chunk.value, { stream: true })
      let newline = pending.indexOf('\n')
      while (newline !== -1 || (chunk.done && pending.trim() !== '')) {
        const line = newline === -1 ? pending : pending.slice(0, newline)
        pending = newline === -1 ? '' : pending.slice(newline + 1)
        if (line.trim() !== '') {
          const parsed = parseJson(line)
          if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
            yield upstreamFailures.unexpectedShape(provider.name, 'a line of its result file is not a JSON object')
            return
          }
          yield parsed as Record<string, unknown>
        }
        newline = pending.indexOf('\n')
      }
      if (chunk.done) return
    }
  } finally {
    reader.cancel().catch(() => {})
  }
}

/** What to scrub from a provider's messages: its API key (cloud credentials are scrubbed by the service's logger). */
function secretsOf(provider: ProviderInstance): readonly string[] {
  return provider.apiKey ? [provider.apiKey] : []
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

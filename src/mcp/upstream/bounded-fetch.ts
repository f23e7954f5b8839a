/**
 * @module The fetch the MCP client transports use towards HTTP upstream servers: an answer larger than the
 * server's `max_response_bytes` fails instead of filling memory.
 * - The answer to a POST (one request's answer, JSON or an event stream that ends with it) is read whole within the
 *   limit before the SDK sees it, so a too-large answer fails the send, and with it the one request, at once.
 * - A GET's event stream (the server's notifications) stays a stream and counts per event (the blank line that ends
 *   one resets the count): it is not cut for its age, but one huge event is.
 * Redirects are refused outright (as on /v1: a 3xx could send the server's static headers elsewhere).
 */
export class UpstreamResponseTooLarge extends Error {
  constructor(readonly limitBytes: number) {
    super(`the MCP server's answer exceeds ${limitBytes} bytes`)
    this.name = 'UpstreamResponseTooLarge'
  }
}

export class UpstreamRedirected extends Error {
  constructor(readonly status: number) {
    super(`the MCP server answered with a redirect (${status}); redirects are not followed`)
    this.name = 'UpstreamRedirected'
  }
}

type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>

export function boundedFetch(maxResponseBytes: number, baseFetch: Fetch = fetch): Fetch {
  return async (url, init) => {
    const response = await baseFetch(url, { ...init, redirect: 'manual' })
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel().catch(() => {})
      throw new UpstreamRedirected(response.status)
    }
    if (!response.body) return response
    const declared = Number(response.headers.get('content-length') ?? Number.NaN)
    if (declared > maxResponseBytes) {
      await response.body.cancel().catch(() => {})
      throw new UpstreamResponseTooLarge(maxResponseBytes)
    }
    const answerInit = { status: response.status, statusText: response.statusText, headers: response.headers }
    if ((init?.method ?? 'GET').toUpperCase() !== 'GET') return new Response(await readWithin(response.body, maxResponseBytes), answerInit)
    const perEvent = (response.headers.get('content-type') ?? '').includes('text/event-stream')
    return new Response(response.body.pipeThrough(byteLimit(maxResponseBytes, perEvent)), answerInit)
  }
}

const LF = 10

export async function readWithin(body: ReadableStream<Uint8Array>, max: number): Promise<Uint8Array<ArrayBuffer>> {
  const reader = body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > max) {
      await reader.cancel().catch(() => {})
      throw new UpstreamResponseTooLarge(max)
    }
    chunks.push(value)
  }
  const whole = new Uint8Array(size)
  let at = 0
  for (const chunk of chunks) {
    whole.set(chunk, at)
    at += chunk.byteLength
  }
  return whole
}

function byteLimit(max: number, perEvent: boolean): TransformStream<Uint8Array, Uint8Array> {
  let count = 0
  let lastWasLf = false
  return new TransformStream({
    transform(chunk, controller) {
      if (!perEvent) {
        count += chunk.byteLength
      } else {
        // Bytes since the last blank line (an event's end); `\r` is ignored, so CRLF streams count the same.
        for (let i = 0; i < chunk.byteLength; i++) {
          const byte = chunk[i]!
          if (byte === LF) {
            if (lastWasLf) count = 0
            lastWasLf = true
          } else if (byte !== 13) {
            lastWasLf = false
            if (++count > max) break
          }
        }
      }
      if (count > max) {
        controller.error(new UpstreamResponseTooLarge(max))
        return
      }
      controller.enqueue(chunk)
    },
  })
}

/**
 * @module The fetch the MCP client transports use towards HTTP upstream servers: an answer larger than the
 * server's `max_response_bytes` fails instead of filling memory. A JSON answer counts as a whole; an event stream
 * counts per event (the blank line that ends one resets the count), so a long-lived notification stream is not cut
 * for its age but one huge event is. Redirects are refused outright (as on /v1: a 3xx could send the server's
 * static headers elsewhere); the SDK's own OAuth requests use their own policy.
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
    const perEvent = (response.headers.get('content-type') ?? '').includes('text/event-stream')
    return new Response(response.body.pipeThrough(byteLimit(maxResponseBytes, perEvent)), { status: response.status, statusText: response.statusText, headers: response.headers })
  }
}

const LF = 10

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
            count++
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

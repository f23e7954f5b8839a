/**
 * @module Speaks HTTP/1.1 over a raw TCP socket, for what `fetch` cannot do: announce one body length and send
 * less (a trickle), send a chunked body that never ends, or watch whether the server closes the connection.
 */
export interface RawExchange {
  /** Everything the server sent so far. */
  readonly received: string
  /** True once the server closed the connection. */
  readonly closed: boolean
  /** Writes more bytes (false when the socket is gone). */
  write(data: string | Uint8Array): boolean
  /** Writes all of `data`, waiting while the socket takes it in part (false when the socket went away first). */
  writeAll(data: string | Uint8Array): Promise<boolean>
  /** Resolves when the server has sent `text` (or closed, or `timeoutMs` passed); returns what it sent. */
  waitFor(text: string, timeoutMs: number): Promise<string>
  /** Resolves when the server closed the connection (true) or after `timeoutMs` (false). */
  waitClosed(timeoutMs: number): Promise<boolean>
  end(): void
}

export async function rawHttp(url: string, head: string): Promise<RawExchange> {
  const { hostname, port } = new URL(url)
  let received = ''
  let closed = false
  const decoder = new TextDecoder()
  const socket = await Bun.connect({
    hostname,
    port: Number(port),
    socket: {
      data(_s, data) {
        received += decoder.decode(data, { stream: true })
      },
      close() {
        closed = true
      },
      error() {
        closed = true
      },
    },
  })
  socket.write(head)
  const until = async (done: () => boolean, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs
    while (!done() && Date.now() < deadline) await Bun.sleep(10)
    return done()
  }
  return {
    get received() {
      return received
    },
    get closed() {
      return closed
    },
    write: (data) => !closed && socket.write(data) >= 0,
    async writeAll(data) {
      const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data
      let at = 0
      while (at < bytes.byteLength && !closed) {
        at += Math.max(0, socket.write(bytes.subarray(at)))
        if (at < bytes.byteLength) await Bun.sleep(1)
      }
      return at === bytes.byteLength
    },
    async waitFor(text, timeoutMs) {
      await until(() => received.includes(text) || closed, timeoutMs)
      return received
    },
    waitClosed: (timeoutMs) => until(() => closed, timeoutMs),
    end: () => socket.end(),
  }
}

/** Request head for a POST with the given extra header lines. */
export function postHead(path: string, host: string, headers: Record<string, string>): string {
  return `POST ${path} HTTP/1.1\r\nHost: ${host}\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`
}

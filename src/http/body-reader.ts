/**
 * @module Reads a request body within a size limit and a deadline, chunk by chunk as it arrives: a chunked body is
 * refused as soon as it passes the limit (not when it ends), and a body that trickles in is given up at the
 * deadline (like nginx's `client_body_timeout`, but for the whole body: a byte every few seconds would keep a
 * per-read timeout happy forever).
 */
export type BodyRead =
  | { kind: 'read'; text: string; size: number }
  | { kind: 'too_large' }
  | { kind: 'timeout' }
  /** The client went away, or the stream failed. */
  | { kind: 'aborted' }

export interface BodyLimits {
  maxBytes: number
  deadlineMs: number
}

export async function readBody(request: Request, { maxBytes, deadlineMs }: BodyLimits): Promise<BodyRead> {
  const declared = request.headers.get('content-length')
  if (declared !== null) {
    const size = Number(declared)
    if (size > maxBytes) return { kind: 'too_large' }
    if (size === 0) return { kind: 'read', text: '', size: 0 }
    // A declared length is enforced by the HTTP parser, so the native whole-body read is safe; it costs about a third
    // of the CPU of pulling chunks through a JavaScript reader, which matters on every request. `request.body` is not
    // touched on this path: reading it makes a ReadableStream that the native read then has to go through.
    return readDeclared(request, size, deadlineMs)
  }
  if (!request.body) return { kind: 'read', text: '', size: 0 }
  const reader = request.body.getReader()
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    reader.cancel().catch(() => {})
  }, deadlineMs)
  const chunks: Uint8Array[] = []
  let size = 0
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (timedOut) return { kind: 'timeout' }
      if (done) break
      size += value.byteLength
      if (size > maxBytes) {
        reader.cancel().catch(() => {})
        return { kind: 'too_large' }
      }
      chunks.push(value)
    }
  } catch {
    return { kind: timedOut ? 'timeout' : 'aborted' }
  } finally {
    clearTimeout(timer)
  }
  return { kind: 'read', text: Buffer.concat(chunks, size).toString('utf8'), size }
}

async function readDeclared(request: Request, size: number, deadlineMs: number): Promise<BodyRead> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const deadline = new Promise<BodyRead>((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'timeout' }), deadlineMs)
  })
  const whole = request.text().then(
    (text): BodyRead => ({ kind: 'read', text, size }),
    (): BodyRead => ({ kind: 'aborted' }),
  )
  try {
    return await Promise.race([whole, deadline])
  } finally {
    clearTimeout(timer)
  }
}

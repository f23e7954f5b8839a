/**
 * @module Reads a request body within a size limit and a deadline, chunk by chunk as it arrives: a chunked body is
 * refused as soon as it passes the limit (not when it ends), and a body that trickles in is given up at the
 * deadline (like nginx's `client_body_timeout`, but for the whole body: a byte every few seconds would keep a
 * per-read timeout happy forever). A JSON body large enough to hold more values than allowed is counted as it
 * arrives and refused as soon as it passes that limit, before it is decoded (json-values.ts).
 */
import { clearDeadline, deadlines } from '../pipeline/deadlines.ts'
import { couldHoldMoreValues, JsonValueCounter } from './json-values.ts'

export type BodyRead =
  | { kind: 'read'; text: string; size: number }
  | { kind: 'too_large' }
  | { kind: 'timeout' }
  /** The client went away, or the stream failed. */
  | { kind: 'aborted' }

/** More JSON values than `maxJsonValues`; the rest was not read. */
export type TooManyValues = { kind: 'too_many_values' }

export interface BodyLimits {
  maxBytes: number
  deadlineMs: number
  /** The body is JSON and may hold at most this many values (counted as in json-values.ts). */
  maxJsonValues?: number
}

const TOO_LARGE: BodyRead = Object.freeze({ kind: 'too_large' })
const TOO_MANY_VALUES: TooManyValues = Object.freeze({ kind: 'too_many_values' })
const TIMEOUT: BodyRead = Object.freeze({ kind: 'timeout' })
const ABORTED: BodyRead = Object.freeze({ kind: 'aborted' })
const EMPTY: BodyRead = Object.freeze({ kind: 'read', text: '', size: 0 })

export function readBody(request: Request, limits: BodyLimits & { maxJsonValues: number }): Promise<BodyRead | TooManyValues>
export function readBody(request: Request, limits: Omit<BodyLimits, 'maxJsonValues'>): Promise<BodyRead>
export function readBody(request: Request, limits: BodyLimits): Promise<BodyRead | TooManyValues> {
  const declared = request.headers.get('content-length')
  if (declared !== null) {
    const size = Number(declared)
    if (size > limits.maxBytes) return Promise.resolve(TOO_LARGE)
    if (size === 0) return Promise.resolve(EMPTY)
    // A declared length is enforced by the HTTP parser, so the native whole-body read is safe; it costs about a third
    // of the CPU of pulling chunks through a JavaScript reader, which matters on every request. `request.body` is not
    // touched on this path: reading it makes a ReadableStream that the native read then has to go through.
    // Bodies that could hold too many values (over 1.5 MB) are rare; they are counted chunk by chunk instead.
    if (limits.maxJsonValues === undefined || !couldHoldMoreValues(size, limits.maxJsonValues)) return readDeclared(request, size, limits.deadlineMs)
  }
  if (!request.body) return Promise.resolve(EMPTY)
  return readChunked(request.body, limits)
}

async function readChunked(body: ReadableStream<Uint8Array>, { maxBytes, deadlineMs, maxJsonValues }: BodyLimits): Promise<BodyRead | TooManyValues> {
  const counter = maxJsonValues === undefined ? undefined : new JsonValueCounter(maxJsonValues)
  const reader = body.getReader()
  let timedOut = false
  const deadline = deadlines(deadlineMs).start(() => {
    timedOut = true
    reader.cancel().catch(() => {})
  })
  const chunks: Uint8Array[] = []
  let size = 0
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (timedOut) return TIMEOUT
      if (done) break
      size += value.byteLength
      if (size > maxBytes) {
        reader.cancel().catch(() => {})
        return TOO_LARGE
      }
      if (counter?.push(value)) {
        reader.cancel().catch(() => {})
        return TOO_MANY_VALUES
      }
      chunks.push(value)
    }
  } catch {
    return timedOut ? TIMEOUT : ABORTED
  } finally {
    clearDeadline(deadline)
  }
  return { kind: 'read', text: Buffer.concat(chunks, size).toString('utf8'), size }
}

/** The body's bytes as they came, within the size limit and the deadline (for a row that forwards them unchanged). */
export type BytesRead = { kind: 'read'; bytes: Uint8Array<ArrayBuffer>; size: number } | { kind: 'too_large' } | { kind: 'timeout' } | { kind: 'aborted' }

export async function readBodyBytes(request: Request, limits: Omit<BodyLimits, 'maxJsonValues'>): Promise<BytesRead> {
  const declared = request.headers.get('content-length')
  if (declared !== null && Number(declared) > limits.maxBytes) return TOO_LARGE as BytesRead
  if (!request.body || declared === '0') return { kind: 'read', bytes: new Uint8Array(0), size: 0 }
  const reader = request.body.getReader()
  let timedOut = false
  const deadline = deadlines(limits.deadlineMs).start(() => {
    timedOut = true
    reader.cancel().catch(() => {})
  })
  const chunks: Uint8Array[] = []
  let size = 0
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (timedOut) return TIMEOUT as BytesRead
      if (done) break
      size += value.byteLength
      if (size > limits.maxBytes) {
        reader.cancel().catch(() => {})
        return TOO_LARGE as BytesRead
      }
      chunks.push(value)
    }
  } catch {
    return (timedOut ? TIMEOUT : ABORTED) as BytesRead
  } finally {
    clearDeadline(deadline)
  }
  return { kind: 'read', bytes: new Uint8Array(Buffer.concat(chunks, size)), size }
}

/** The native whole-body read, given up at the deadline (one promise, no race). */
function readDeclared(request: Request, size: number, deadlineMs: number): Promise<BodyRead> {
  return new Promise<BodyRead>((resolve) => {
    const deadline = deadlines(deadlineMs).start(() => resolve(TIMEOUT))
    request.text().then(
      (text) => {
        clearDeadline(deadline)
        resolve({ kind: 'read', text, size })
      },
      () => {
        clearDeadline(deadline)
        resolve(ABORTED)
      },
    )
  })
}

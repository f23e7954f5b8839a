/**
 * @module An incremental multipart/form-data parser (RFC 7578): bytes are pushed in as they arrive and come out as
 * events (a text field whole, a file part's start, its data in pieces, its end), so a file part is never held whole.
 * Text fields, part headers and the number of parts are bounded; what breaks a bound or the syntax is `malformed`.
 */

export type FormEvent =
  | { kind: 'field'; name: string; value: string }
  | { kind: 'file'; name: string; filename: string; contentType: string | null }
  | { kind: 'data'; bytes: Uint8Array }
  | { kind: 'file_end' }
  | { kind: 'done' }
  | { kind: 'malformed'; message: string }

/** A text field's value (model, prompt, language, …): OpenAI's prompt is a few hundred tokens. */
export const MAX_FIELD_BYTES = 64 * 1024
export const MAX_PART_HEADER_BYTES = 8 * 1024
export const MAX_PARTS = 64

const CRLF = Buffer.from('\r\n')
const HEADERS_END = Buffer.from('\r\n\r\n')

type State = 'headers' | 'field' | 'file' | 'after_delimiter' | 'done'

export class MultipartParser {
  /** `\r\n--boundary`: the body starts with a virtual CRLF so that the first delimiter looks like the others. */
  private readonly delimiter: Buffer
  private buffer: Buffer = CRLF
  private state: State | 'preamble' = 'preamble'
  private field?: { name: string; chunks: Buffer[]; size: number }
  private parts = 0

  constructor(boundary: string) {
    this.delimiter = Buffer.from(`\r\n--${boundary}`)
  }

  get finished(): boolean {
    return this.state === 'done'
  }

  /**
   * A file's `data` events are views of `chunk` (rarely of a copy), valid as long as it is; once `push` returns the
   * parser holds no view of it (what is left over, at most a part's headers, is copied), so the caller may release
   * the chunk after using the events (src/http/release-bytes.ts).
   */
  push(chunk: Uint8Array): FormEvent[] {
    if (this.state === 'done') return []
    const events: FormEvent[] = []
    this.buffer = this.joined(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength), events)
    while (this.step(events));
    if (this.buffer.length > 0) this.buffer = Buffer.from(this.buffer)
    return events
  }

  /**
   * The new bytes after those left over. Inside a part the left-over is the tail that might start a delimiter: when
   * it does not (nearly always), it is data and the chunk is taken as it is rather than copied behind it.
   */
  private joined(bytes: Buffer, events: FormEvent[]): Buffer {
    if (this.buffer.length === 0) return bytes
    // A delimiter starting in the tail ends within the chunk's first delimiter.length - 1 bytes, if it has them.
    if ((this.state === 'file' || this.state === 'field') && bytes.length >= this.delimiter.length - 1) {
      const probe = Buffer.concat([this.buffer, bytes.subarray(0, this.delimiter.length - 1)])
      if (probe.indexOf(this.delimiter) < 0) return this.data(events, this.buffer) ? bytes : Buffer.alloc(0)
    }
    return Buffer.concat([this.buffer, bytes])
  }

  /** The body ended: anything but a closed form is malformed. */
  end(): FormEvent[] {
    return this.state === 'done' ? [] : [{ kind: 'malformed', message: 'The form ended before its closing boundary.' }]
  }

  /** One step of the state machine; false when it needs more bytes (or stopped). */
  private step(events: FormEvent[]): boolean {
    switch (this.state) {
      case 'preamble': {
        const at = this.buffer.indexOf(this.delimiter)
        if (at < 0) {
          if (this.buffer.length > MAX_PART_HEADER_BYTES) return this.fail(events, 'The form does not start with its boundary.')
          return false
        }
        this.buffer = this.buffer.subarray(at + this.delimiter.length)
        this.state = 'after_delimiter'
        return true
      }
      case 'after_delimiter': {
        if (this.buffer.length < 2) return false
        if (this.buffer[0] === 0x2d && this.buffer[1] === 0x2d) {
          this.state = 'done'
          this.buffer = Buffer.alloc(0)
          events.push({ kind: 'done' })
          return false
        }
        // Transport padding (spaces, tabs) may precede the CRLF.
        const eol = this.buffer.indexOf(CRLF)
        if (eol < 0) return this.buffer.length > 64 ? this.fail(events, 'A boundary line is malformed.') : false
        if (this.buffer.subarray(0, eol).toString('latin1').trim() !== '') return this.fail(events, 'A boundary line is malformed.')
        this.buffer = this.buffer.subarray(eol + 2)
        this.state = 'headers'
        return true
      }
      case 'headers': {
        const end = this.buffer.indexOf(HEADERS_END)
        // A part with no headers at all starts with the blank line right away.
        const blank = this.buffer.subarray(0, 2).equals(CRLF)
        if (end < 0 && !blank) return this.buffer.length > MAX_PART_HEADER_BYTES ? this.fail(events, 'A part has headers over 8 KiB.') : false
        if (++this.parts > MAX_PARTS) return this.fail(events, `The form has more than ${MAX_PARTS} parts.`)
        const head = blank ? '' : this.buffer.subarray(0, end).toString('utf8')
        this.buffer = this.buffer.subarray(blank ? 2 : end + 4)
        const part = parsePartHeaders(head)
        if (typeof part === 'string') return this.fail(events, part)
        if (part.filename === undefined) {
          this.field = { name: part.name, chunks: [], size: 0 }
          this.state = 'field'
        } else {
          events.push({ kind: 'file', name: part.name, filename: part.filename, contentType: part.contentType })
          this.state = 'file'
        }
        return true
      }
      case 'field':
      case 'file': {
        const at = this.buffer.indexOf(this.delimiter)
        // Without a delimiter, all but a possible start of one at the end is data. Only a tail that could begin a
        // delimiter is kept: most chunks end without one, so the next is used as it is, not copied onto a tail.
        const dataEnd = at < 0 ? this.buffer.length - this.delimiterStartAtEnd() : at
        if (dataEnd > 0 && !this.data(events, this.buffer.subarray(0, dataEnd))) return false
        this.buffer = this.buffer.subarray(at < 0 ? dataEnd : at + this.delimiter.length)
        if (at < 0) return false
        if (this.state === 'file') events.push({ kind: 'file_end' })
        else {
          const field = this.field!
          events.push({ kind: 'field', name: field.name, value: Buffer.concat(field.chunks, field.size).toString('utf8') })
          this.field = undefined
        }
        this.state = 'after_delimiter'
        return true
      }
      default:
        return false
    }
  }

  /** How many bytes at the end of the buffer could be the start of a delimiter (0 when none). */
  private delimiterStartAtEnd(): number {
    const { buffer, delimiter } = this
    const from = Math.max(0, buffer.length - delimiter.length + 1)
    // A delimiter starts with CR: only a tail from a CR can be one.
    for (let at = buffer.indexOf(0x0d, from); at >= 0; at = buffer.indexOf(0x0d, at + 1)) {
      const tail = buffer.subarray(at)
      if (tail.equals(delimiter.subarray(0, tail.length))) return tail.length
    }
    return 0
  }

  private data(events: FormEvent[], bytes: Buffer): boolean {
    if (this.state === 'file') {
      events.push({ kind: 'data', bytes })
      return true
    }
    const field = this.field!
    field.size += bytes.length
    if (field.size > MAX_FIELD_BYTES) return this.fail(events, `The form field '${field.name.slice(0, 100)}' is over ${MAX_FIELD_BYTES / 1024} KiB; only files may be larger.`)
    field.chunks.push(Buffer.from(bytes))
    return true
  }

  private fail(events: FormEvent[], message: string): false {
    events.push({ kind: 'malformed', message })
    this.state = 'done'
    this.buffer = Buffer.alloc(0)
    return false
  }
}

/** `name`, `filename` (undefined for a text field) and `Content-Type` of one part, or what is wrong with them. */
function parsePartHeaders(head: string): { name: string; filename: string | undefined; contentType: string | null } | string {
  let disposition: string | undefined
  let contentType: string | null = null
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':')
    if (colon < 0) return 'A part header has no colon.'
    const key = line.slice(0, colon).trim().toLowerCase()
    const value = line.slice(colon + 1).trim()
    if (key === 'content-disposition') disposition = value
    else if (key === 'content-type') contentType = value
  }
  if (!disposition || !/^form-data\s*(;|$)/i.test(disposition)) return 'A part has no Content-Disposition: form-data header.'
  const name = dispositionParam(disposition, 'name')
  if (name === undefined) return 'A part has no name.'
  return { name, filename: dispositionParam(disposition, 'filename'), contentType }
}

function dispositionParam(disposition: string, param: string): string | undefined {
  const match = new RegExp(`;\\s*${param}\\s*=\\s*(?:"((?:[^"\\\\]|\\\\.)*)"|([^;\\s]*))`, 'i').exec(disposition)
  if (!match) return undefined
  return match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : match[2]
}

/**
 * @module A multipart upload (`body: 'multipart'` rows) streamed through, never held whole. `openUpload` reads the
 * form's text fields as they arrive, holding file parts meanwhile, until the form ends or READ_AHEAD_BYTES of files
 * are held: the pipeline checks access, limits, budgets and guardrails on those fields before a byte goes upstream. `forUpstream` then re-encodes the
 * form for the provider (the fields as the pipeline left them, `model` the upstream id, then the file parts read on
 * from the client as the provider takes them). Each part's name, filename, content type, size and SHA-256 are kept
 * for the audit entry; its bytes never are.
 *
 * The order of the parts is the client's (the TypeScript SDK sends them in the order of the call's keys). Every
 * text field within the read-ahead is checked wherever it stands; a larger upload must send its text fields before
 * its files: without `model` by then it is refused (400 `model_after_file`), and a text field that comes later,
 * unchecked, ends the upload with a 400 (`field_after_file`) rather than reach the provider.
 */
import { GatewayError, gatewayErrors } from '../errors/gateway-error.ts'
import { clearDeadline, type Deadline, deadlines } from '../pipeline/deadlines.ts'
import { type FormEvent, MultipartParser } from './multipart-parser.ts'
import { SpentChunks } from './release-bytes.ts'

/** File bytes held while the text fields are read: one per upload in progress, so bounded small. */
export const READ_AHEAD_BYTES = 4 * 1024 * 1024

/** One part of the form as the audit entry records it. */
export interface UploadPart {
  name: string
  /** null for a text field. */
  filename: string | null
  content_type: string | null
  bytes: number
  sha256: string
}

/** The form's text fields; a name given more than once (`timestamp_granularities[]`) keeps every value in order. */
export type FormFields = Record<string, string | string[]>

export interface UploadLimits {
  maxBytes: number
  deadlineMs: number
}

const encoder = new TextEncoder()

export class MultipartUpload {
  readonly parts: UploadPart[] = []
  /** Why the upload could not be read to its end (413, 408, 400), once it could not; the answer to give instead of the upstream's. */
  failure?: GatewayError
  private sent = false
  /** Given up on purpose (the upstream answered first, or no upstream call): the client's body ending now is no failure of the client's. */
  private discarded = false
  private readonly held: FormEvent[] = []
  private heldBytes = 0
  private size = 0
  private current?: { part: UploadPart; hash: Bun.CryptoHasher }
  /**
   * The client's chunks read so far: once their events went upstream and the provider asks for more, they are freed.
   * Dropped (nothing kept, nothing freed) when the form's consumer does not free them (`forUpstream`).
   */
  private received: SpentChunks | undefined = new SpentChunks()
  private readonly deadline: Deadline

  constructor(
    private readonly reader: ReadableStreamDefaultReader<Uint8Array>,
    private readonly parser: MultipartParser,
    private readonly limits: UploadLimits,
    /** Every text field, in the order they came. */
    readonly fields: FormFields,
  ) {
    this.deadline = deadlines(limits.deadlineMs).start(() => this.stop(gatewayErrors.bodyTimeout(limits.deadlineMs / 1000)))
  }

  /** The client's body was read to its end (or given up): nothing of it is left on the connection. */
  get finished(): boolean {
    return this.parser.finished
  }

  /** Reads on until the form ends or READ_AHEAD_BYTES of files are held (refused then without a `model`). */
  async open(): Promise<GatewayError | undefined> {
    for (;;) {
      const events = await this.next()
      if (events === undefined) return this.failure
      for (const event of events) {
        if (event.kind === 'field') {
          this.addField(event.name, event.value)
          continue
        }
        if (event.kind === 'done') {
          clearDeadline(this.deadline)
          continue
        }
        this.held.push(event)
        this.track(event)
        if (event.kind === 'data') this.heldBytes += event.bytes.byteLength
      }
      if (this.failure) return this.failure
      if (this.parser.finished) return undefined
      if (this.heldBytes <= READ_AHEAD_BYTES) continue
      if (this.fields.model !== undefined) return undefined
      return this.stop(
        gatewayErrors.invalidRequest(
          `The form's files pass ${READ_AHEAD_BYTES / 1024 / 1024} MiB before its 'model' field; send the text fields before the files.`,
          'model',
          'model_after_file',
        ),
      )
    }
  }

  /**
   * The form for the provider, streamed: `fields` first (the pipeline's body: `model` is the upstream's id), then
   * the files as they come from the client. An upload is sent once: a second attempt gets a 502 instead.
   * `freeSpentChunks`: the body goes to `fetch` (fetchUpstream), whose request writer is done with a chunk when it
   * asks for the next, so each client chunk is freed then (src/http/release-bytes.ts); a consumer that collects the
   * chunks in-process (a form read whole) must not ask for it: it would find them emptied.
   */
  forUpstream(fields: Record<string, unknown>, { freeSpentChunks = false } = {}): { body: ReadableStream<Uint8Array>; contentType: string } | GatewayError {
    if (this.sent) return gatewayErrors.invalidRequest('The upload was already sent to a provider; it cannot be sent again.', null, 'upload_already_sent')
    this.sent = true
    if (!freeSpentChunks) this.received = undefined
    const boundary = `gateway-${crypto.randomUUID().replaceAll('-', '')}`
    let opened = false
    const upload = this
    return {
      contentType: `multipart/form-data; boundary=${boundary}`,
      body: new ReadableStream<Uint8Array>(
        {
          async pull(controller) {
            if (!opened) {
              opened = true
              controller.enqueue(encoder.encode(encodeFields(boundary, fields)))
              for (const event of upload.held.splice(0)) upload.emit(controller, event, boundary)
              if (upload.parser.finished) return upload.close(controller, boundary)
              return
            }
            // Asked for more (a high-water mark of 0: only when the fetch client reads), it has taken what it was given.
            upload.received?.release()
            const events = await upload.next()
            if (events === undefined) return controller.error(upload.failure ?? new Error('The upload was discarded.'))
            for (const event of events) {
              if (event.kind === 'field') {
                // Too late to be checked: the pipeline has long decided on the fields it read.
                upload.stop(
                  gatewayErrors.invalidRequest(
                    `The form's text field '${event.name.slice(0, 100)}' comes after ${READ_AHEAD_BYTES / 1024 / 1024} MiB of files; send the text fields before the files.`,
                    event.name.slice(0, 100),
                    'field_after_file',
                  ),
                )
                return controller.error(upload.failure)
              }
              if (event.kind !== 'done') upload.track(event)
              upload.emit(controller, event, boundary)
            }
            if (upload.failure) return controller.error(upload.failure)
            if (upload.parser.finished) upload.close(controller, boundary)
          },
          cancel() {
            upload.discard()
          },
        },
        { highWaterMark: freeSpentChunks ? 0 : 1 },
      ),
    }
  }

  /** Stops reading the client's body (an answer given without sending the upload, or a failed upstream call). */
  discard(): void {
    this.discarded = true
    clearDeadline(this.deadline)
    if (!this.parser.finished) this.reader.cancel().catch(() => {})
  }

  private close(controller: ReadableStreamDefaultController<Uint8Array>, boundary: string): void {
    clearDeadline(this.deadline)
    controller.enqueue(encoder.encode(`--${boundary}--\r\n`))
    controller.close()
  }

  private emit(controller: ReadableStreamDefaultController<Uint8Array>, event: FormEvent, boundary: string): void {
    if (event.kind === 'data') controller.enqueue(event.bytes)
    else if (event.kind === 'file') controller.enqueue(encoder.encode(`--${boundary}\r\n${partHeaders(event.name, event.filename, event.contentType)}\r\n`))
    else if (event.kind === 'file_end') controller.enqueue(encoder.encode('\r\n'))
  }

  /** The part metadata as the bytes pass: size and SHA-256 of each file, the field's size for a text part. */
  private track(event: FormEvent): void {
    if (event.kind === 'file') {
      const part: UploadPart = { name: event.name, filename: event.filename, content_type: event.contentType, bytes: 0, sha256: '' }
      this.parts.push(part)
      this.current = { part, hash: new Bun.CryptoHasher('sha256') }
    } else if (event.kind === 'data' && this.current) {
      this.current.part.bytes += event.bytes.byteLength
      this.current.hash.update(event.bytes)
    } else if (event.kind === 'file_end' && this.current) {
      this.current.part.sha256 = this.current.hash.digest('hex')
      this.current = undefined
    }
  }

  private addField(name: string, value: string): void {
    const previous = this.fields[name]
    this.fields[name] = previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value]
    this.parts.push({ name, filename: null, content_type: null, bytes: Buffer.byteLength(value), sha256: new Bun.CryptoHasher('sha256').update(value).digest('hex') })
  }

  /** The next events from the client's body; undefined once it failed (`failure` says why). */
  private async next(): Promise<FormEvent[] | undefined> {
    if (this.failure || this.discarded) return undefined
    if (this.parser.finished) return [{ kind: 'done' }]
    let read: Awaited<ReturnType<typeof this.reader.read>>
    try {
      read = await this.reader.read()
    } catch {
      if (this.failure || this.discarded) return undefined
      return this.stop(gatewayErrors.invalidRequest('The request body could not be read to its end.', null, 'request_body_incomplete')) && undefined
    }
    // A read that ended because the upload was discarded meanwhile (the upstream answered) is not the client's doing.
    if (this.failure || this.discarded) return undefined
    if (read.done) return this.checked(this.parser.end())
    this.size += read.value.byteLength
    this.received?.add(read.value)
    if (this.size > this.limits.maxBytes) return this.stop(gatewayErrors.bodyTooLarge(this.limits.maxBytes)) && undefined
    return this.checked(this.parser.push(read.value))
  }

  private checked(events: FormEvent[]): FormEvent[] | undefined {
    const malformed = events.find((event) => event.kind === 'malformed')
    if (malformed?.kind === 'malformed') return this.stop(gatewayErrors.invalidRequest(`Malformed multipart form: ${malformed.message}`, null, 'malformed_form')) && undefined
    if (events.some((event) => event.kind === 'done')) clearDeadline(this.deadline)
    return events
  }

  private stop(error: GatewayError): GatewayError {
    this.failure ??= error
    clearDeadline(this.deadline)
    this.reader.cancel().catch(() => {})
    return this.failure
  }
}

/**
 * Opens a multipart upload: 415 unless the body is `multipart/form-data` with a boundary, 413 for a declared length
 * over the limit, then the fields up to the first file part (`MultipartUpload.open`).
 */
export async function openUpload(request: Request, limits: UploadLimits): Promise<MultipartUpload | GatewayError> {
  const contentType = request.headers.get('content-type')
  const boundary = contentType === null ? undefined : formBoundary(contentType)
  if (boundary === undefined) {
    return new GatewayError({
      status: 415,
      type: 'invalid_request_error',
      message: `Content-Type '${(contentType ?? '').slice(0, 100)}' is not accepted here; send the body as multipart/form-data with a boundary.`,
      param: 'content-type',
      code: 'unsupported_media_type',
    })
  }
  const declared = request.headers.get('content-length')
  if (declared !== null && Number(declared) > limits.maxBytes) return gatewayErrors.bodyTooLarge(limits.maxBytes)
  if (!request.body) return gatewayErrors.invalidRequest('Malformed multipart form: the body is empty.', null, 'malformed_form')
  const upload = new MultipartUpload(request.body.getReader(), new MultipartParser(boundary), limits, {})
  const failure = await upload.open()
  if (failure) return failure
  if (typeof upload.fields.model !== 'string') {
    upload.discard()
    return gatewayErrors.invalidRequest("The form has no 'model' field.", 'model', 'missing_model')
  }
  return upload
}

/** The boundary of a `multipart/form-data` Content-Type; undefined for any other type. */
export function formBoundary(contentType: string): string | undefined {
  const semicolon = contentType.indexOf(';')
  if (semicolon < 0 || contentType.slice(0, semicolon).trim().toLowerCase() !== 'multipart/form-data') return undefined
  const match = /;\s*boundary\s*=\s*(?:"([^"]{1,70})"|([^;\s]{1,70}))/i.exec(contentType)
  return match ? (match[1] ?? match[2]) : undefined
}

function partHeaders(name: string, filename: string, contentType: string | null): string {
  return `Content-Disposition: form-data; name="${quoted(name)}"; filename="${quoted(filename)}"\r\nContent-Type: ${contentType ?? 'application/octet-stream'}\r\n`
}

function quoted(value: string): string {
  return value.replace(/["\\\r\n]/g, (c) => (c === '"' ? '%22' : c === '\\' ? '\\\\' : c === '\r' ? '%0D' : '%0A'))
}

function encodeFields(boundary: string, fields: Record<string, unknown>): string {
  let text = ''
  for (const [name, value] of Object.entries(fields)) {
    for (const one of Array.isArray(value) ? value : [value]) {
      if (one === undefined || one === null) continue
      const string = typeof one === 'string' ? one : typeof one === 'number' || typeof one === 'boolean' ? String(one) : JSON.stringify(one)
      text += `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(name)}"\r\n\r\n${string}\r\n`
    }
  }
  return text
}

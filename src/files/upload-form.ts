/**
 * @module Reads a file upload (POST /v1/files, multipart/form-data) as it arrives: text fields are collected (and
 * checked as they come, so a bad `purpose` before the file stops the upload at once), the one `file` part goes to
 * the byte store chunk by chunk with its size and SHA-256 taken on the way; nothing is held whole. The parts'
 * metadata (never their bytes) is kept for the audit entry. Fields may come before or after the file: the
 * TypeScript SDK sends them in the order of the call's keys, the Python SDK the fields first.
 */
import { GatewayError, gatewayErrors } from '../errors/gateway-error.ts'
import { type FormFields, formBoundary, type UploadPart } from '../http/multipart-upload.ts'
import { MultipartParser } from '../http/multipart-parser.ts'
import type { StreamedBody } from '../http/streamed-body.ts'
import type { BlobWriter } from '../stores/blobs/blob-store.ts'

const GC_HINT_BYTES = 8 * 1024 * 1024

/** What the form may add to the file's bytes (its boundaries, part headers and text fields). */
const FORM_OVERHEAD_BYTES = 1024 * 1024

export interface ReceivedUpload {
  fields: FormFields
  filename: string
  bytes: number
  sha256: string
  parts: UploadPart[]
  /** The file's bytes, written but not ended: the caller ends it once the fields are good, else aborts it. */
  writer: BlobWriter
}

export interface UploadFormOptions {
  /** The name of the form's one file part (`file`; an upload part's is `data`). */
  fileField: string
  maxFileBytes: number
  deadlineMs: number
  /** Where the file's bytes go; called once, at the file part. */
  startWriter: () => BlobWriter
  /** Checks a text field as it arrives; an error stops the upload. */
  checkField: (name: string, value: string) => GatewayError | undefined
  /** Records the parts read so far, also when the upload fails (the audit entry of a refused upload has them). */
  parts: UploadPart[]
}

export async function receiveUploadForm(body: StreamedBody, options: UploadFormOptions): Promise<ReceivedUpload | GatewayError> {
  const boundary = body.contentType === null ? undefined : formBoundary(body.contentType)
  if (boundary === undefined) {
    body.discard()
    return new GatewayError({
      status: 415,
      type: 'invalid_request_error',
      message: `Content-Type '${(body.contentType ?? '').slice(0, 100)}' is not accepted here; send the file as multipart/form-data with a boundary.`,
      param: 'content-type',
      code: 'unsupported_media_type',
    })
  }
  const maxBodyBytes = options.maxFileBytes + FORM_OVERHEAD_BYTES
  if (body.declaredLength !== undefined && body.declaredLength > maxBodyBytes) {
    body.discard()
    return gatewayErrors.bodyTooLarge(options.maxFileBytes)
  }
  const reading = new FormReading(body, new MultipartParser(boundary), options)
  const timer = setTimeout(() => reading.timeOut(), options.deadlineMs)
  try {
    const failure = await reading.run()
    if (failure) {
      body.discard()
      await reading.writer?.abort()
      return failure
    }
    return reading.result()
  } catch (error) {
    body.discard()
    await reading.writer?.abort().catch(() => {})
    throw error
  } finally {
    clearTimeout(timer)
  }
}

class FormReading {
  readonly fields: FormFields = {}
  writer?: BlobWriter
  private file?: { part: UploadPart; hash: Bun.CryptoHasher }
  private fileDone = false
  private total = 0
  private timedOut = false

  constructor(
    private readonly body: StreamedBody,
    private readonly parser: MultipartParser,
    private readonly options: UploadFormOptions,
  ) {}

  timeOut(): void {
    this.timedOut = true
    this.body.discard()
  }

  /** Reads the form to its end; the reason it could not, else undefined. */
  async run(): Promise<GatewayError | undefined> {
    for (;;) {
      let chunk: Uint8Array | undefined
      try {
        chunk = await this.body.read()
      } catch {
        chunk = undefined
        if (!this.timedOut) return gatewayErrors.invalidRequest('The request body could not be read to its end.', null, 'request_body_incomplete')
      }
      if (this.timedOut) return gatewayErrors.bodyTimeout(this.options.deadlineMs / 1000)
      if (chunk === undefined) {
        if (this.parser.finished) return undefined
        return gatewayErrors.invalidRequest('Malformed multipart form: the form ended before its closing boundary.', null, 'malformed_form')
      }
      this.total += chunk.byteLength
      if (this.total > this.options.maxFileBytes + FORM_OVERHEAD_BYTES) return gatewayErrors.bodyTooLarge(this.options.maxFileBytes)
      for (const event of this.parser.push(chunk)) {
        switch (event.kind) {
          case 'malformed':
            return gatewayErrors.invalidRequest(`Malformed multipart form: ${event.message}`, null, 'malformed_form')
          case 'field': {
            const refused = this.addField(event.name, event.value)
            if (refused) return refused
            break
          }
          case 'file': {
            if (event.name !== this.options.fileField || this.file)
              return gatewayErrors.invalidRequest(`The form must carry exactly one file, in its '${this.options.fileField}' part.`, event.name.slice(0, 100), 'unexpected_file')
            const part: UploadPart = { name: event.name, filename: event.filename, content_type: event.contentType, bytes: 0, sha256: '' }
            this.options.parts.push(part)
            this.file = { part, hash: new Bun.CryptoHasher('sha256') }
            this.writer = this.options.startWriter()
            break
          }
          case 'data': {
            const file = this.file!
            file.part.bytes += event.bytes.byteLength
            if (file.part.bytes > this.options.maxFileBytes) return gatewayErrors.bodyTooLarge(this.options.maxFileBytes)
            file.hash.update(event.bytes)
            await this.writer!.write(event.bytes)
            // The body's chunks are garbage once written; in a process with the gateway's heap the collector lets
            // tens of MiB of them pile up during a large upload (bench/file-memory.ts: 30 MiB over idle for 256 MiB,
            // 13 with this). A collection is asked for (not waited for) every GC_HINT_BYTES.
            if (file.part.bytes % GC_HINT_BYTES < event.bytes.byteLength) Bun.gc(false)
            break
          }
          case 'file_end':
            this.file!.part.sha256 = this.file!.hash.digest('hex')
            this.fileDone = true
            break
          case 'done':
            break
        }
      }
    }
  }

  result(): ReceivedUpload | GatewayError {
    const field = this.options.fileField
    if (!this.file || !this.fileDone || !this.writer) return gatewayErrors.invalidRequest(`The form has no '${field}' part.`, field, 'missing_file')
    const { part } = this.file
    return { fields: this.fields, filename: part.filename ?? 'file', bytes: part.bytes, sha256: part.sha256, parts: this.options.parts, writer: this.writer }
  }

  private addField(name: string, value: string): GatewayError | undefined {
    if (this.fields[name] !== undefined) return gatewayErrors.invalidRequest(`The form field '${name.slice(0, 100)}' is given twice.`, name.slice(0, 100), 'duplicate_field')
    this.fields[name] = value
    this.options.parts.push({ name, filename: null, content_type: null, bytes: Buffer.byteLength(value), sha256: new Bun.CryptoHasher('sha256').update(value).digest('hex') })
    return this.options.checkField(name, value)
  }
}

/**
 * @module OpenAI's Uploads API: a large file sent in parts (each streamed to the byte store under its part id),
 * then completed into one file from the parts in the order the client names, or cancelled. The one writer of
 * uploads and their parts. An upload's parts go when it is completed or cancelled, and the upload itself an hour
 * after its creation (the expiry sweep), as at OpenAI.
 */
import { GatewayError, gatewayErrors } from '../errors/gateway-error.ts'
import type { StreamedBody } from '../http/streamed-body.ts'
import type { Logger } from '../log/logger.ts'
import type { ExpiringRows } from '../stores/retention.ts'
import type { StoredUpload, StoredUploadPart, UploadStore } from '../stores/types.ts'
import type { StoredFileInfo } from './file-access.ts'
import type { FileService } from './file-service.ts'
import { BATCH_FILE_EXPIRY_SECONDS } from './schemas.ts'
import { MAX_PART_BYTES, UPLOAD_LIFETIME_SECONDS } from './upload-schemas.ts'
import { receiveUploadForm } from './upload-form.ts'

export interface NewUpload {
  owner: string
  userPath: string
  bytes: number
  filename: string
  mimeType: string
  purpose: string
  fileExpiresAfter: number | null
}

const timeOrderedId = (prefix: string) => `${prefix}${Bun.randomUUIDv7().replaceAll('-', '')}`

export function uploadNotFound(id: string): GatewayError {
  return new GatewayError({ status: 404, type: 'invalid_request_error', param: 'upload_id', code: 'upload_not_found', message: `No such Upload object: ${id.slice(0, 200)}` })
}

function notPending(upload: StoredUpload): GatewayError {
  return new GatewayError({
    status: 400,
    type: 'invalid_request_error',
    param: 'upload_id',
    code: 'upload_not_pending',
    message: `The upload ${upload.id} is ${upload.status}; parts can be added, and it can be completed or cancelled, only while it is pending.`,
  })
}

export class UploadService {
  constructor(
    private readonly records: UploadStore,
    private readonly files: FileService,
    private readonly log: Logger,
    private readonly limits: { maxFileBytes: number; uploadTimeoutMs: number },
  ) {}

  async create(upload: NewUpload): Promise<StoredUpload | GatewayError> {
    if (upload.bytes > this.limits.maxFileBytes)
      return gatewayErrors.invalidRequest(`bytes: ${upload.bytes} is over this gateway's limit of ${this.limits.maxFileBytes} bytes a file.`, 'bytes', 'file_too_large')
    const createdAt = this.files.nowSeconds()
    const stored: StoredUpload = { ...upload, id: timeOrderedId('upload_'), createdAt, expiresAt: createdAt + UPLOAD_LIFETIME_SECONDS, status: 'pending', fileId: null }
    await this.records.create(stored)
    return stored
  }

  /** The owner's upload, pending or not; undefined for another owner's or one already swept. */
  async get(id: string, owner: string): Promise<StoredUpload | undefined> {
    const upload = await this.records.get(id, owner)
    return upload && upload.expiresAt > this.files.nowSeconds() ? upload : undefined
  }

  /** Reads one part's form (its `data` file) into the byte store. */
  async addPart(id: string, owner: string, body: StreamedBody): Promise<StoredUploadPart | GatewayError> {
    const upload = await this.get(id, owner)
    if (!upload) {
      body.discard()
      return uploadNotFound(id)
    }
    if (upload.status !== 'pending') {
      body.discard()
      return notPending(upload)
    }
    const partId = timeOrderedId('part_')
    const received = await receiveUploadForm(body, {
      fileField: 'data',
      maxFileBytes: Math.min(MAX_PART_BYTES, upload.bytes),
      deadlineMs: this.limits.uploadTimeoutMs,
      startWriter: () => this.files.blobs.writer(partId),
      checkField: (name) => gatewayErrors.invalidRequest(`Unknown field '${name.slice(0, 100)}'; a part's form has one file, 'data'.`, name.slice(0, 100), 'invalid_request'),
      parts: [],
    })
    if (received instanceof GatewayError) return received
    await received.writer.end()
    const part: StoredUploadPart = { id: partId, uploadId: upload.id, bytes: received.bytes, createdAt: this.files.nowSeconds() }
    try {
      await this.records.addPart(part)
    } catch (error) {
      await this.files.blobs.delete(partId).catch(() => {})
      throw error
    }
    return part
  }

  /** Joins the named parts, in order, into one file; the upload then holds it and its parts go. */
  async complete(id: string, owner: string, partIds: readonly string[], md5: string | undefined): Promise<{ upload: StoredUpload; file: StoredFileInfo } | GatewayError> {
    const upload = await this.get(id, owner)
    if (!upload) return uploadNotFound(id)
    if (upload.status !== 'pending') return notPending(upload)
    const parts = new Map((await this.records.parts(upload.id)).map((p) => [p.id, p]))
    const named: StoredUploadPart[] = []
    for (const [i, partId] of partIds.entries()) {
      const part = parts.get(partId)
      if (!part) return gatewayErrors.invalidRequest(`part_ids.${i}: no part ${partId.slice(0, 200)} was added to this upload.`, `part_ids.${i}`, 'invalid_request')
      if (named.includes(part)) return gatewayErrors.invalidRequest(`part_ids.${i}: the part ${partId.slice(0, 200)} is named twice.`, `part_ids.${i}`, 'invalid_request')
      named.push(part)
    }
    const total = named.reduce((sum, p) => sum + p.bytes, 0)
    if (total !== upload.bytes)
      return gatewayErrors.invalidRequest(`The parts hold ${total} bytes; the upload was created for ${upload.bytes}.`, 'part_ids', 'upload_size_mismatch')
    const hash = md5 === undefined ? undefined : new Bun.CryptoHasher('md5')
    const lifetime = upload.fileExpiresAfter ?? (upload.purpose === 'batch' ? BATCH_FILE_EXPIRY_SECONDS : null)
    const file = await this.files.create({
      owner,
      userPath: upload.userPath,
      purpose: upload.purpose,
      filename: upload.filename,
      body: this.joined(named, hash),
      expiresAfterSeconds: lifetime,
    })
    if (hash && hash.digest('hex') !== md5!.toLowerCase()) {
      await this.files.delete(file.id, owner)
      return gatewayErrors.invalidRequest("md5: the file's MD5 is not the one given.", 'md5', 'md5_mismatch')
    }
    if (!(await this.records.finish(upload.id, owner, 'completed', file.id))) {
      await this.files.delete(file.id, owner)
      const now = await this.records.get(upload.id, owner)
      return now ? notPending(now) : uploadNotFound(id)
    }
    await this.dropParts([...parts.keys()])
    return { upload: { ...upload, status: 'completed', fileId: file.id }, file }
  }

  async cancel(id: string, owner: string): Promise<StoredUpload | GatewayError> {
    const upload = await this.get(id, owner)
    if (!upload) return uploadNotFound(id)
    if (!(await this.records.finish(upload.id, owner, 'cancelled', null))) return notPending(upload)
    await this.dropParts((await this.records.parts(upload.id)).map((p) => p.id))
    return { ...upload, status: 'cancelled' }
  }

  /** The sweep for `Retention`: uploads an hour old go, with any part still held. */
  expiredUploads(): ExpiringRows {
    return {
      deleteOlderThan: async (_cutoffMs, batch) => {
        const expired = await this.records.expired(this.files.nowSeconds(), batch)
        for (const upload of expired) {
          await this.dropParts((await this.records.parts(upload.id)).map((p) => p.id))
          await this.records.forget(upload.id)
        }
        return expired.length
      },
    }
  }

  /** The parts' bytes one after the other, each read from the store as the file's writer takes them. */
  private joined(parts: readonly StoredUploadPart[], hash: Bun.CryptoHasher | undefined): ReadableStream<Uint8Array> {
    const blobs = this.files.blobs
    let index = 0
    let reader: ReadableStreamDefaultReader<Uint8Array> | undefined
    return new ReadableStream<Uint8Array>({
      async pull(controller) {
        for (;;) {
          if (!reader) {
            const part = parts[index++]
            if (!part) return controller.close()
            const body = await blobs.read(part.id)
            if (!body) throw new Error(`the bytes of upload part ${part.id} are missing from the byte store`)
            reader = body.getReader()
          }
          const next = await reader.read()
          if (next.done) {
            reader = undefined
            continue
          }
          hash?.update(next.value)
          controller.enqueue(next.value)
          return
        }
      },
      cancel(reason) {
        return reader?.cancel(reason)
      },
    })
  }

  private async dropParts(partIds: readonly string[]): Promise<void> {
    for (const partId of partIds) await this.files.blobs.delete(partId).catch((err) => this.log.warn({ err, part_id: partId }, 'could not delete the bytes of an upload part'))
  }
}

/**
 * @module The files domain: records in the database (`FileStore`), bytes in the byte store (`BlobStore`), owned by
 * the principal that made them. The one writer of both: uploads (POST /v1/files), files other domains make for an
 * owner (`FileAccess.create`: batch outputs), deletions and the expiry sweep. An expired file is gone for its owner
 * at once (every read checks `expiresAt`), and its bytes and record go at the next sweep.
 */
import type { Logger } from '../log/logger.ts'
import type { BlobStore, BlobWriter } from '../stores/blobs/blob-store.ts'
import type { ExpiringRows } from '../stores/retention.ts'
import type { FileListQuery, FileStore } from '../stores/types.ts'
import type { FileAccess, NewFile, StoredFileInfo } from './file-access.ts'

export interface FileServiceOptions {
  now?: () => number
}

/** A file's id: `file-` and a time-ordered UUID (the list pages by id). */
export function newFileId(): string {
  return `file-${Bun.randomUUIDv7().replaceAll('-', '')}`
}

export class FileService implements FileAccess {
  private readonly now: () => number

  constructor(
    readonly records: FileStore,
    readonly blobs: BlobStore,
    private readonly log: Logger,
    options: FileServiceOptions = {},
  ) {
    this.now = options.now ?? Date.now
  }

  /** Epoch seconds. */
  nowSeconds(): number {
    return Math.floor(this.now() / 1000)
  }

  /** The owner's file when it has not expired; undefined otherwise (not told apart). */
  async get(id: string, owner: string): Promise<StoredFileInfo | undefined> {
    const file = await this.records.get(id, owner)
    if (!file || this.hasExpired(file)) return undefined
    return file
  }

  async open(id: string, owner: string): Promise<{ info: StoredFileInfo; body: ReadableStream<Uint8Array> } | undefined> {
    const info = await this.get(id, owner)
    if (!info) return undefined
    const body = await this.blobs.read(id)
    if (!body) {
      this.log.error({ file_id: id }, 'a file record has no bytes in the byte store')
      return undefined
    }
    return { info, body }
  }

  async create(file: NewFile): Promise<StoredFileInfo> {
    const id = newFileId()
    const writer = this.blobs.writer(id)
    const hash = new Bun.CryptoHasher('sha256')
    let bytes = 0
    const reader = file.body.getReader()
    try {
      for (;;) {
        const next = await reader.read()
        if (next.done) break
        bytes += next.value.byteLength
        hash.update(next.value)
        await writer.write(next.value)
      }
    } catch (error) {
      await writer.abort().catch(() => {})
      throw error
    }
    const createdAt = this.nowSeconds()
    return this.record(writer, {
      id,
      owner: file.owner,
      userPath: file.userPath,
      purpose: file.purpose,
      filename: file.filename,
      bytes,
      sha256: hash.digest('hex'),
      createdAt,
      expiresAt: file.expiresAfterSeconds === null ? null : createdAt + file.expiresAfterSeconds,
    })
  }

  /** Ends the bytes' write, then records the file; the bytes go again when the record cannot be made. */
  async record(writer: BlobWriter, info: StoredFileInfo): Promise<StoredFileInfo> {
    await writer.end()
    try {
      await this.records.insert(info)
    } catch (error) {
      await this.blobs.delete(info.id).catch(() => {})
      throw error
    }
    return info
  }

  list(owner: string, query: Omit<FileListQuery, 'now'>): Promise<StoredFileInfo[]> {
    return this.records.list(owner, { ...query, now: this.nowSeconds() })
  }

  /** Deletes the owner's file (record, then bytes); the deleted file, or undefined when it was not theirs or had expired. */
  async delete(id: string, owner: string): Promise<StoredFileInfo | undefined> {
    const deleted = await this.records.delete(id, owner)
    if (!deleted) return undefined
    await this.blobs.delete(id).catch((err) => this.log.warn({ err, file_id: id }, 'could not delete the bytes of a deleted file; the next expiry sweep does not see them'))
    return this.hasExpired(deleted) ? undefined : deleted
  }

  /** The expiry sweep for `Retention`: bytes first, then the record, so bytes never outlive their record unseen. */
  expiredFiles(): ExpiringRows {
    return {
      deleteOlderThan: async (_cutoffMs, batch) => {
        const expired = await this.records.expired(this.nowSeconds(), batch)
        for (const file of expired) {
          await this.blobs.delete(file.id)
          await this.records.forget(file.id)
        }
        return expired.length
      },
    }
  }

  private hasExpired(file: StoredFileInfo): boolean {
    return file.expiresAt !== null && file.expiresAt <= this.nowSeconds()
  }
}

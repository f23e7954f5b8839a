/**
 * @module The S3 byte store: one object per key in a bucket of any S3-compatible store (AWS S3, MinIO, R2, …)
 * through Bun's built-in S3 client, so several replicas share the files. Writes stream as a multipart upload (parts
 * of PART_BYTES, at most QUEUED_PARTS in flight: the memory one upload holds is bounded whatever its size); a
 * write that fails or is aborted is ended with an error, which abandons the upload, and leaves no object. Reads
 * stream the object.
 */
import { S3Client, type S3Options } from 'bun'
import type { BlobStore, BlobWriter } from '../blob-store.ts'

/** S3's smallest part (all but the last); an upload holds about PART_BYTES × (QUEUED_PARTS + 1) at most. */
const PART_BYTES = 5 * 1024 * 1024
const QUEUED_PARTS = 2

/** Keys are gateway-made ids (letters, digits, `-`, `_`): nothing a client sends becomes a key. */
const SAFE_KEY = /^[A-Za-z0-9_-]{1,200}$/

export interface S3BlobStoreSettings {
  bucket: string
  endpoint?: string
  region?: string
  accessKeyId?: string
  secretAccessKey?: string
  sessionToken?: string
  virtualHostedStyle?: boolean
  /** Prepended to every key. */
  prefix: string
}

export class S3BlobStore implements BlobStore {
  readonly kind = 's3' as const
  private readonly client: S3Client

  constructor(private readonly settings: S3BlobStoreSettings) {
    const options: S3Options = { bucket: settings.bucket, virtualHostedStyle: settings.virtualHostedStyle ?? false }
    if (settings.endpoint) options.endpoint = settings.endpoint
    if (settings.region) options.region = settings.region
    if (settings.accessKeyId) options.accessKeyId = settings.accessKeyId
    if (settings.secretAccessKey) options.secretAccessKey = settings.secretAccessKey
    if (settings.sessionToken) options.sessionToken = settings.sessionToken
    this.client = new S3Client(options)
  }

  /** Where the store is, for messages (never the credentials). */
  get location(): string {
    return `s3://${this.settings.bucket}/${this.settings.prefix} at ${this.settings.endpoint ?? 'the default AWS endpoint'}`
  }

  async check(): Promise<void> {
    const key = `check-${process.pid}-${Date.now()}`
    const probe = this.writer(key)
    await probe.write(new TextEncoder().encode('ok'))
    await probe.end()
    const back = await this.client.file(this.key(key)).text()
    if (back !== 'ok') throw new Error(`read back ${JSON.stringify(back.slice(0, 20))} instead of what was written`)
    await this.delete(key)
  }

  writer(key: string): BlobWriter {
    const file = this.client.file(this.key(key), { partSize: PART_BYTES, queueSize: QUEUED_PARTS, type: 'application/octet-stream' })
    const sink = file.writer({ partSize: PART_BYTES, queueSize: QUEUED_PARTS, retry: 3 })
    let ended = false
    return {
      async write(chunk) {
        const written = sink.write(chunk)
        if (written instanceof Promise) await written
      },
      async end() {
        ended = true
        await sink.end()
      },
      abort: async () => {
        if (!ended) {
          ended = true
          await Promise.resolve(sink.end(new Error('upload abandoned'))).catch(() => {})
        }
        await this.delete(key).catch(() => {})
      },
    }
  }

  async read(key: string): Promise<ReadableStream<Uint8Array> | undefined> {
    const file = this.client.file(this.key(key))
    if (!(await file.exists())) return undefined
    return file.stream()
  }

  async delete(key: string): Promise<void> {
    await this.client.file(this.key(key)).delete()
  }

  private key(key: string): string {
    if (!SAFE_KEY.test(key)) throw new Error(`not a blob key: ${JSON.stringify(key.slice(0, 50))}`)
    return `${this.settings.prefix}${key}`
  }
}

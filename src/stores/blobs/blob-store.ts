/**
 * @module Where the bytes of files live (the Files API, batch outputs), behind one interface: a directory on local
 * disk (./local) or a bucket of an S3-compatible store (./s3). Bytes stream both ways: a writer takes chunks as they
 * arrive and a read is a stream, so no file is ever held whole. Keys are the gateway's own ids, never a client's.
 */

/** One object being written: chunks in order, then `end` (durable once it resolves) or `abort` (nothing kept). */
export interface BlobWriter {
  /** Resolves when the chunk may be reused and the store is ready for more (backpressure). */
  write(chunk: Uint8Array): Promise<void>
  end(): Promise<void>
  abort(): Promise<void>
}

export interface BlobStore {
  /** `local` or `s3`: for logs and the dashboard. */
  readonly kind: 'local' | 's3'
  /** Checks at start-up that the store can be written and read (a clear error otherwise). */
  check(): Promise<void>
  /** Starts writing `key`; until `end` resolves, a read does not see it. */
  writer(key: string): BlobWriter
  /** The object's bytes as a stream; undefined when there is none. */
  read(key: string): Promise<ReadableStream<Uint8Array> | undefined>
  /** Removes the object; no error when there is none. */
  delete(key: string): Promise<void>
}

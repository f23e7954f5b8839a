/**
 * @module What other domains (batches) may do with files: read a file that their caller owns, and write a new one
 * for that owner (batch output and error files). Implemented by src/files; the bytes stream both ways, never held
 * whole. An owner is a `Principal.id` (the managed key's id, `master`, …): every file belongs to the principal that
 * uploaded or caused it, and another principal gets undefined, never told whether the id exists.
 */

/** A file's record, as OpenAI's `file` object tells it (`bytes`, `purpose`, …) plus what the gateway keeps. */
export interface StoredFileInfo {
  /** `file-` followed by an opaque id. */
  id: string
  /** `Principal.id` of the owner. */
  owner: string
  /** The user path of the request that made the file ('' when none); the dashboard filters by it. */
  userPath: string
  purpose: string
  filename: string
  bytes: number
  sha256: string
  /** Epoch seconds, as OpenAI's `created_at`. */
  createdAt: number
  /** Epoch seconds; null: kept until deleted. */
  expiresAt: number | null
}

export interface NewFile {
  owner: string
  userPath: string
  purpose: string
  filename: string
  body: ReadableStream<Uint8Array>
  /** Its lifetime counted from its `created_at` (OpenAI's `anchor: created_at`); null: kept until deleted. */
  expiresAfterSeconds: number | null
}

export interface FileAccess {
  /** The file and its bytes when `owner` owns it and it has not expired; undefined otherwise (not told apart). */
  open(id: string, owner: string): Promise<{ info: StoredFileInfo; body: ReadableStream<Uint8Array> } | undefined>
  /** Stores the bytes as they arrive and records the file; resolves when both are durable. */
  create(file: NewFile): Promise<StoredFileInfo>
}

/**
 * @module `files`: where the bytes of the Files API live (docs/files.md). `local` keeps them in a directory beside the
 * database; `s3` in a bucket of any S3-compatible store (several replicas share it). The metadata is in the database
 * either way.
 */
import { z } from 'zod'

const integer = (min: number, max = Number.MAX_SAFE_INTEGER) => z.coerce.number().int().min(min).max(max)

/** OpenAI's own limit on one file. */
export const DEFAULT_MAX_FILE_BYTES = 512 * 1024 * 1024

export const s3FilesConfigSchema = z.strictObject({
  bucket: z.string().min(1),
  /** The store's URL (`http://127.0.0.1:9000`, `https://s3.eu-west-1.amazonaws.com`); default AWS's for `region`. */
  endpoint: z.url({ protocol: /^https?$/ }).optional(),
  region: z.string().min(1).optional(),
  /** Default: the S3_ACCESS_KEY_ID / AWS_ACCESS_KEY_ID variables Bun's S3 client reads. */
  access_key_id: z.string().min(1).optional(),
  secret_access_key: z.string().min(1).optional(),
  session_token: z.string().min(1).optional(),
  /** Keys are `<prefix><file id>`; lets one bucket serve several gateways. */
  prefix: z.string().default('files/'),
  /** `https://<bucket>.<host>` rather than `https://<host>/<bucket>`. */
  virtual_hosted_style: z
    .union([z.boolean(), z.enum(['true', 'false'])])
    .transform((v) => v === true || v === 'true')
    .default(false),
})

export const filesConfigSchema = z.strictObject({
  /** `local` (a directory) or `s3` (an S3-compatible bucket, `files.s3`). */
  store: z.enum(['local', 's3']).default('local'),
  /** The local store's directory; default `<database.path>.files` (a temporary directory for an in-memory database). */
  directory: z.string().min(1).optional(),
  /** Largest file accepted by POST /v1/files (a 413 beyond it); OpenAI's limit by default. */
  max_file_bytes: integer(1).default(DEFAULT_MAX_FILE_BYTES),
  /** Time allowed for an upload's body to arrive whole (a 408 after it): 512 MiB at 1 MB/s takes about 9 minutes. */
  upload_timeout_seconds: integer(1).default(3600),
  s3: s3FilesConfigSchema.optional(),
})

export type FilesConfig = z.infer<typeof filesConfigSchema>

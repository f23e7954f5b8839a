/**
 * @module Opens the byte store the configuration names (`files.store`) and checks it can be written and read: a
 * store that cannot stops start-up with a message saying which and why.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { GatewayConfig } from '../../config/schema.ts'
import type { BlobStore } from './blob-store.ts'
import { LocalBlobStore } from './local/local-blob-store.ts'
import { S3BlobStore } from './s3/s3-blob-store.ts'

/** The local store's directory: the configured one, else beside the database file (a temporary one for `:memory:`). */
export function localFilesDirectory(config: GatewayConfig): string {
  if (config.files.directory) return resolve(config.files.directory)
  if (config.database.path === ':memory:') return mkdtempSync(join(tmpdir(), 'gateway-files-'))
  return resolve(`${config.database.path}.files`)
}

export async function openBlobStore(config: GatewayConfig): Promise<BlobStore> {
  const s3 = config.files.s3
  if (config.files.store === 's3' && s3) {
    const store = new S3BlobStore({
      bucket: s3.bucket,
      endpoint: s3.endpoint,
      region: s3.region,
      accessKeyId: s3.access_key_id,
      secretAccessKey: s3.secret_access_key,
      sessionToken: s3.session_token,
      virtualHostedStyle: s3.virtual_hosted_style,
      prefix: s3.prefix,
    })
    try {
      await store.check()
    } catch (error) {
      throw new Error(`files: the S3 store ${store.location} cannot be written and read back (${(error as Error).message}); check files.s3 (FILES_S3_*) and that the bucket exists`)
    }
    return store
  }
  const store = new LocalBlobStore(localFilesDirectory(config))
  try {
    await store.check()
  } catch (error) {
    throw new Error(`files: the directory ${store.directory} cannot be written (${(error as Error).message}); set files.directory (FILES_DIRECTORY)`)
  }
  return store
}

/**
 * @module The local byte store: one file per object in a directory (beside the database by default). An object is
 * written to `<key>.part` and renamed to `<key>` when it ended, so a read never sees half an object and a crash leaves
 * only `.part` files, which `check` removes at start-up once they are a day old.
 */
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { FileSink } from 'bun'
import type { BlobStore, BlobWriter } from '../blob-store.ts'

/** Written to disk at this many buffered bytes: the sink's buffer stays small whatever the client's chunk sizes. */
const FLUSH_BYTES = 1024 * 1024

const STALE_PART_MS = 86_400_000

/** Keys are gateway-made ids: letters, digits, `-` and `_` only, so a key can never name a path outside the directory. */
const SAFE_KEY = /^[A-Za-z0-9_-]{1,200}$/

export class LocalBlobStore implements BlobStore {
  readonly kind = 'local' as const

  constructor(readonly directory: string) {}

  async check(): Promise<void> {
    await mkdir(this.directory, { recursive: true })
    // Left by a process that stopped mid-upload; one of a day is no upload in progress (other workers share the directory).
    const stale = Date.now() - STALE_PART_MS
    for (const name of await readdir(this.directory)) {
      if (!name.endsWith('.part')) continue
      const path = join(this.directory, name)
      if (((await stat(path).catch(() => undefined))?.mtimeMs ?? Infinity) < stale) await rm(path, { force: true })
    }
    const probe = this.writer(`check-${process.pid}`)
    await probe.write(new TextEncoder().encode('ok'))
    await probe.end()
    await this.delete(`check-${process.pid}`)
  }

  writer(key: string): BlobWriter {
    const path = this.path(key)
    const partial = `${path}.part`
    let sink: FileSink | undefined
    let pending = 0
    return {
      async write(chunk) {
        sink ??= Bun.file(partial).writer({ highWaterMark: FLUSH_BYTES })
        sink.write(chunk)
        pending += chunk.byteLength
        if (pending >= FLUSH_BYTES) {
          pending = 0
          await sink.flush()
        }
      },
      async end() {
        sink ??= Bun.file(partial).writer()
        await sink.end()
        await rename(partial, path)
      },
      async abort() {
        try {
          await sink?.end()
        } finally {
          await rm(partial, { force: true })
        }
      },
    }
  }

  async read(key: string): Promise<ReadableStream<Uint8Array> | undefined> {
    const path = this.path(key)
    const found = await stat(path).catch(() => undefined)
    if (!found?.isFile()) return undefined
    return Bun.file(path).stream()
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true })
  }

  private path(key: string): string {
    if (!SAFE_KEY.test(key)) throw new Error(`not a blob key: ${JSON.stringify(key.slice(0, 50))}`)
    return join(this.directory, key)
  }
}

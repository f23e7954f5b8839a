/**
 * @module The files contract: the same assertions for every metadata backend (`FileStore`) and every byte store
 * (`BlobStore`), through the file service that writes both. A backend pair joins with one line in
 * contract.test.ts: `filesContract('<name>', () => open fresh stores, () => a fresh byte store)`.
 */
import { afterEach, describe, expect, test } from 'bun:test'
import type { StoredFileInfo } from '../../src/files/file-access.ts'
import { FileService } from '../../src/files/file-service.ts'
import { UploadService } from '../../src/files/upload-service.ts'
import { StreamedBody } from '../../src/http/streamed-body.ts'
import { silentLogger } from '../../src/log/logger.ts'
import type { BlobStore } from '../../src/stores/blobs/blob-store.ts'
import type { Stores } from '../../src/stores/types.ts'

const T0 = 1_800_000_000

const streamOf = (...chunks: string[]) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk))
      controller.close()
    },
  })

const textOf = async (body: ReadableStream<Uint8Array> | undefined) => (body ? await new Response(body).text() : undefined)
const sha256 = (text: string) => new Bun.CryptoHasher('sha256').update(text).digest('hex')

export function filesContract(backend: string, openStores: () => Promise<Stores>, openBlobs: () => Promise<BlobStore>): void {
  describe(`files contract: ${backend}`, () => {
    const opened: Stores[] = []
    afterEach(async () => {
      for (const s of opened.splice(0)) await s.close()
    })
    /** A file service on fresh stores, its clock at `clock.now` (epoch seconds). */
    const fresh = async () => {
      const stores = await openStores()
      opened.push(stores)
      const clock = { now: T0 }
      const blobs = await openBlobs()
      return { stores, blobs, clock, files: new FileService(stores.files, blobs, silentLogger, { now: () => clock.now * 1000 }) }
    }
    const newFile = (owner: string, extra: Partial<{ purpose: string; expiresAfterSeconds: number | null; userPath: string; body: ReadableStream<Uint8Array> }> = {}) => ({
      owner,
      userPath: extra.userPath ?? '/acme',
      purpose: extra.purpose ?? 'batch',
      filename: 'in.jsonl',
      body: extra.body ?? streamOf('{"a":', '1}\n'),
      expiresAfterSeconds: extra.expiresAfterSeconds ?? null,
    })

    test('create streams the bytes in and records size and SHA-256; open streams them back, for the owner only', async () => {
      const { files, stores } = await fresh()
      const made = await files.create(newFile('key_a', { body: streamOf('hello ', 'world') }))
      expect(made).toMatchObject({
        owner: 'key_a',
        userPath: '/acme',
        purpose: 'batch',
        filename: 'in.jsonl',
        bytes: 11,
        sha256: sha256('hello world'),
        createdAt: T0,
        expiresAt: null,
      })
      expect(made.id).toMatch(/^file-[0-9a-f]{32}$/)
      expect(await stores.files.get(made.id, 'key_a')).toEqual(made)
      const opened = await files.open(made.id, 'key_a')
      expect({ info: opened?.info, text: await textOf(opened?.body) }).toEqual({ info: made, text: 'hello world' })
      expect(await files.open(made.id, 'key_b')).toBeUndefined()
      expect(await files.get(made.id, 'key_b')).toBeUndefined()
      expect(await files.delete(made.id, 'key_b')).toBeUndefined()
      expect(await files.get(made.id, 'key_a')).toEqual(made)
    })

    test('a failed stream keeps nothing: no record, no bytes', async () => {
      const { files, stores } = await fresh()
      const broken = new ReadableStream<Uint8Array>({
        pull(controller) {
          controller.error(new Error('client went away'))
        },
      })
      await expect(files.create(newFile('key_a', { body: broken }))).rejects.toThrow('client went away')
      expect(await stores.files.list('key_a', { limit: 10, order: 'desc', now: T0 })).toEqual([])
    })

    test('the list pages by id: after, limit (+1 to tell has_more), order, purpose; another owner sees none', async () => {
      const { files } = await fresh()
      const made: StoredFileInfo[] = []
      for (let i = 0; i < 5; i++) made.push(await files.create(newFile('key_a', { purpose: i % 2 ? 'batch' : 'user_data' })))
      await files.create(newFile('key_b'))
      const ids = (rows: StoredFileInfo[]) => rows.map((f) => f.id)
      const all = made.map((f) => f.id) as [string, string, string, string, string]
      expect(ids(await files.list('key_a', { limit: 2, order: 'desc' }))).toEqual([all[4], all[3], all[2]])
      expect(ids(await files.list('key_a', { limit: 2, order: 'desc', after: all[3] }))).toEqual([all[2], all[1], all[0]])
      expect(ids(await files.list('key_a', { limit: 10, order: 'asc' }))).toEqual(all)
      expect(ids(await files.list('key_a', { limit: 10, order: 'asc', after: all[1] }))).toEqual(all.slice(2))
      expect(ids(await files.list('key_a', { limit: 10, order: 'desc', purpose: 'batch' }))).toEqual([all[3], all[1]])
      expect(ids(await files.list('key_c', { limit: 10, order: 'desc' }))).toEqual([])
    })

    test('an expired file is gone for its owner at once; the sweep deletes its bytes and record, and only expired ones', async () => {
      const { files, stores, blobs, clock } = await fresh()
      const expiring = await files.create(newFile('key_a', { expiresAfterSeconds: 3600 }))
      const kept = await files.create(newFile('key_a'))
      const later = await files.create(newFile('key_a', { expiresAfterSeconds: 7200 }))
      clock.now = T0 + 3600
      expect(await files.get(expiring.id, 'key_a')).toBeUndefined()
      expect(await files.open(expiring.id, 'key_a')).toBeUndefined()
      expect((await files.list('key_a', { limit: 10, order: 'asc' })).map((f) => f.id)).toEqual([kept.id, later.id])
      // Not swept yet: the bytes are still there, unreachable.
      expect(await textOf(await blobs.read(expiring.id))).toBe('{"a":1}\n')
      expect(await files.expiredFiles().deleteOlderThan(0, 100)).toBe(1)
      expect(await blobs.read(expiring.id)).toBeUndefined()
      expect(await stores.files.get(expiring.id, 'key_a')).toBeUndefined()
      expect(await files.get(later.id, 'key_a')).toEqual(later)
      expect(await files.expiredFiles().deleteOlderThan(0, 100)).toBe(0)
    })

    test('a file of several multipart parts (12 MiB in 64 KiB chunks) comes back whole; an aborted write leaves nothing', async () => {
      const { files, blobs } = await fresh()
      const chunk = crypto.getRandomValues(new Uint8Array(65536))
      const count = 192
      const hash = new Bun.CryptoHasher('sha256')
      for (let i = 0; i < count; i++) hash.update(chunk)
      let sent = 0
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent++ < count) controller.enqueue(chunk.slice())
          else controller.close()
        },
      })
      const made = await files.create(newFile('key_a', { body }))
      expect({ bytes: made.bytes, sha256: made.sha256 }).toEqual({ bytes: count * 65536, sha256: hash.digest('hex') })
      const back = new Bun.CryptoHasher('sha256')
      let size = 0
      for await (const piece of (await files.open(made.id, 'key_a'))!.body) {
        size += piece.byteLength
        back.update(piece)
      }
      expect({ size, sha256: back.digest('hex') }).toEqual({ size: made.bytes, sha256: made.sha256 })

      const abandoned = blobs.writer('file-abandoned')
      for (let i = 0; i < 100; i++) await abandoned.write(chunk)
      await abandoned.abort()
      expect(await blobs.read('file-abandoned')).toBeUndefined()
    }, 60_000)

    test('an upload: parts streamed to the store, completed in the order named, parts gone after; another owner sees none; swept an hour on', async () => {
      const { files, stores, blobs, clock } = await fresh()
      const uploads = new UploadService(stores.uploads, files, silentLogger, { maxFileBytes: 1024 * 1024, uploadTimeoutMs: 10_000 })
      const partBody = (text: string) => {
        const form = new FormData()
        form.append('data', new File([text], 'blob'))
        const request = new Request('http://gateway/v1/uploads/x/parts', { method: 'POST', body: form })
        return new StreamedBody(request.body, request.headers.get('content-type'), undefined)
      }
      const made = await uploads.create({ owner: 'key_a', userPath: '/acme', bytes: 11, filename: 'u.txt', mimeType: 'text/plain', purpose: 'user_data', fileExpiresAfter: null })
      if (made instanceof Error) throw made
      expect(await uploads.get(made.id, 'key_b')).toBeUndefined()
      expect(await uploads.addPart(made.id, 'key_b', partBody('no'))).toMatchObject({ status: 404, code: 'upload_not_found' })
      const world = await uploads.addPart(made.id, 'key_a', partBody('world'))
      const hello = await uploads.addPart(made.id, 'key_a', partBody('hello '))
      if (world instanceof Error || hello instanceof Error) throw world
      expect(await textOf(await blobs.read(hello.id))).toBe('hello ')
      const done = await uploads.complete(made.id, 'key_a', [hello.id, world.id], undefined)
      if (done instanceof Error) throw done
      expect(await textOf((await files.open(done.file.id, 'key_a'))?.body)).toBe('hello world')
      expect(await blobs.read(hello.id)).toBeUndefined()
      expect((await uploads.get(made.id, 'key_a'))?.status).toBe('completed')

      const pending = await uploads.create({ owner: 'key_a', userPath: '/acme', bytes: 3, filename: 'p.txt', mimeType: 'text/plain', purpose: 'user_data', fileExpiresAfter: null })
      if (pending instanceof Error) throw pending
      const part = await uploads.addPart(pending.id, 'key_a', partBody('abc'))
      if (part instanceof Error) throw part
      clock.now = T0 + 3600
      expect(await uploads.get(pending.id, 'key_a')).toBeUndefined()
      expect(await uploads.expiredUploads().deleteOlderThan(0, 100)).toBe(2)
      expect(await blobs.read(part.id)).toBeUndefined()
      expect(await stores.uploads.get(pending.id, 'key_a')).toBeUndefined()
      expect(await stores.uploads.parts(pending.id)).toEqual([])
      // The file it became stays.
      expect(await textOf((await files.open(done.file.id, 'key_a'))?.body)).toBe('hello world')
    })

    test('delete removes the record and the bytes', async () => {
      const { files, blobs } = await fresh()
      const made = await files.create(newFile('key_a'))
      expect(await files.delete(made.id, 'key_a')).toEqual(made)
      expect(await blobs.read(made.id)).toBeUndefined()
      expect(await files.get(made.id, 'key_a')).toBeUndefined()
      expect(await files.delete(made.id, 'key_a')).toBeUndefined()
    })

    test("the admin list is newest first, within a user path's subtree (no path is outside every subtree)", async () => {
      const { files, stores } = await fresh()
      const a = await files.create(newFile('key_a', { userPath: '/acme' }))
      const ab = await files.create(newFile('key_b', { userPath: '/acme/team' }))
      const lookalike = await files.create(newFile('key_c', { userPath: '/acme_x' }))
      const none = await files.create(newFile('key_d', { userPath: '' }))
      const ids = (rows: StoredFileInfo[]) => rows.map((f) => f.id)
      expect(ids(await stores.files.adminList({ limit: 10 }))).toEqual([none.id, lookalike.id, ab.id, a.id])
      expect(ids(await stores.files.adminList({ limit: 10, userPath: '/acme' }))).toEqual([ab.id, a.id])
      expect(ids(await stores.files.adminList({ limit: 10, userPath: '/acme/team' }))).toEqual([ab.id])
      expect(ids(await stores.files.adminList({ limit: 1, before: ab.id }))).toEqual([a.id])
      expect(ids(await stores.files.adminList({ limit: 10, owner: 'key_c' }))).toEqual([lookalike.id])
    })
  })
}

/**
 * The Files API end to end with the official `openai` SDK: upload (streamed to the byte store, hashed on the way),
 * list (OpenAI's after / limit / order / purpose), retrieve, download, delete; another key gets 404 for every route
 * of a file it does not own and never sees it listed; bad forms are refused with their status and audited; the
 * audit entry records the parts' metadata, never the bytes. The same suite runs on both byte stores: the local
 * directory and a real S3-compatible server (moto, test/helpers/s3-server.ts) through Bun's S3 client; a bucket the
 * gateway cannot reach stops its start-up with a clear message.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import OpenAI, { NotFoundError, toFile } from 'openai'
import { readdirSync } from 'node:fs'
import { S3Client } from 'bun'
import { startGateway } from '../helpers/gateway.ts'
import { postHead, rawHttp } from '../helpers/raw-http.ts'
import type { LocalBlobStore } from '../../src/stores/blobs/local/local-blob-store.ts'
import { type GatewaySuite, useGatewaySuite } from '../helpers/gateway-suite.ts'
import { type RunningS3, S3_TEST_CREDENTIALS, s3ServerAvailable, startS3Server } from '../helpers/s3-server.ts'

const MAX_FILE = 4 * 1024 * 1024

let s3: RunningS3 | undefined
const s3Env = async (): Promise<Record<string, string>> => {
  s3 ??= await startS3Server()
  return {
    FILES_STORE: 's3',
    FILES_S3_BUCKET: await s3.createBucket(),
    FILES_S3_ENDPOINT: s3.endpoint,
    FILES_S3_REGION: S3_TEST_CREDENTIALS.region,
    FILES_S3_ACCESS_KEY_ID: S3_TEST_CREDENTIALS.accessKeyId,
    FILES_S3_SECRET_ACCESS_KEY: S3_TEST_CREDENTIALS.secretAccessKey,
  }
}
afterAll(() => s3?.stop())

let dir: string
const sha256 = (bytes: Uint8Array) => new Bun.CryptoHasher('sha256').update(bytes).digest('hex')
const bytesOf = (size: number) => {
  const bytes = new Uint8Array(size)
  for (let i = 0; i < size; i += 65536) bytes.set(crypto.getRandomValues(new Uint8Array(Math.min(65536, size - i))), i)
  return bytes
}

for (const store of s3ServerAvailable() ? (['local', 's3'] as const) : (['local'] as const)) describe(`files on ${store} bytes`, () => filesSuite(store))

if (s3ServerAvailable())
  describe('the S3 byte store at start-up', () => {
    test('a bucket that does not exist, or a store that does not answer, stops start-up with a message saying where', async () => {
      const env = await s3Env()
      const missing = startGateway({ ...env, FILES_S3_BUCKET: 'no-such-bucket' })
      await expect(missing).rejects.toThrow(`files: the S3 store s3://no-such-bucket/files/ at ${s3!.endpoint} cannot be written and read back`)
      const closed = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
      const deadEndpoint = `http://127.0.0.1:${closed.port}`
      closed.stop(true)
      const unreachable = startGateway({ ...env, FILES_S3_ENDPOINT: deadEndpoint })
      await expect(unreachable).rejects.toThrow(`at ${deadEndpoint} cannot be written and read back`)
    }, 30_000)
  })

function filesSuite(store: 'local' | 's3') {
  let storeEnv: Record<string, string> = {}
  beforeAll(async () => {
    if (store === 's3') storeEnv = await s3Env()
  }, 60_000)
  const t: GatewaySuite = useGatewaySuite({ env: () => ({ FILES_MAX_FILE_BYTES: String(MAX_FILE), LOGGING_LOG_BODIES: 'true', ...storeEnv }) })

  test('the configured byte store holds the bytes', () => {
    expect(t.gw.gateway.files.blobs.kind).toBe(store)
  })

  async function keyClient(name: string): Promise<OpenAI> {
    const res = await fetch(`${t.gw.url}/admin/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.master}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name }),
    })
    const { key } = (await res.json()) as { key: string }
    return new OpenAI({ apiKey: key, baseURL: t.gw.baseURL, maxRetries: 0 })
  }

  async function post(body: BodyInit, headers: Record<string, string> = {}) {
    const res = await fetch(`${t.gw.baseURL}/files`, { method: 'POST', headers: { authorization: `Bearer ${t.master}`, ...headers }, body })
    return { res, body: (await res.json()) as any }
  }

  /** What the SDK call threw (the SDK's promise is not one `expect().rejects` reads). */
  async function failure(call: PromiseLike<unknown>): Promise<unknown> {
    try {
      await call
    } catch (error) {
      return error
    }
    return undefined
  }

  function form(parts: [string, string | [string, Uint8Array]][]): FormData {
    const data = new FormData()
    for (const [name, value] of parts) {
      if (typeof value === 'string') data.append(name, value)
      else data.append(name, new File([value[1] as Uint8Array<ArrayBuffer>], value[0], { type: 'application/octet-stream' }))
    }
    return data
  }

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'files-e2e-'))
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  describe('files', () => {
    test('upload, retrieve, list, download and delete with the SDK; the bytes come back intact', async () => {
      const client = await keyClient('files-owner')
      const bytes = bytesOf(3 * 1024 * 1024 + 5)
      const path = join(dir, 'input.jsonl')
      writeFileSync(path, bytes)
      const before = Math.floor(Date.now() / 1000)
      const created = await client.files.create({ file: Bun.file(path) as unknown as File, purpose: 'batch', expires_after: { anchor: 'created_at', seconds: 7200 } })
      expect(created).toMatchObject({ object: 'file', bytes: bytes.length, filename: 'input.jsonl', purpose: 'batch', status: 'processed' })
      expect(created.id).toMatch(/^file-[0-9a-f]{32}$/)
      expect(created.created_at).toBeGreaterThanOrEqual(before)
      expect(created.expires_at).toBe(created.created_at + 7200)

      expect(await client.files.retrieve(created.id)).toEqual(created)
      const content = await client.files.content(created.id)
      expect(content.headers.get('content-type')).toBe('application/octet-stream')
      const back = new Uint8Array(await content.arrayBuffer())
      expect({ size: back.length, sha256: sha256(back) }).toEqual({ size: bytes.length, sha256: sha256(bytes) })

      const listed = await client.files.list()
      expect(listed.data.map((f) => f.id)).toContain(created.id)

      expect(await client.files.delete(created.id)).toEqual({ id: created.id, object: 'file', deleted: true })
      expect(await failure(client.files.retrieve(created.id))).toBeInstanceOf(NotFoundError)
      expect(await failure(client.files.content(created.id))).toBeInstanceOf(NotFoundError)
      expect(await failure(client.files.delete(created.id))).toBeInstanceOf(NotFoundError)
    })

    test('a batch file without expires_after expires in 30 days; other purposes are kept until deleted', async () => {
      const client = await keyClient('files-expiry')
      const batch = await client.files.create({ file: await toFile(Buffer.from('{"a":1}\n'), 'a.jsonl'), purpose: 'batch' })
      expect(batch.expires_at).toBe(batch.created_at + 30 * 86_400)
      const kept = await client.files.create({ file: await toFile(Buffer.from('hello'), 'b.txt'), purpose: 'user_data' })
      expect(kept.expires_at).toBeNull()
    })

    test("the list pages as OpenAI's: after, limit, order, purpose", async () => {
      const client = await keyClient('files-list')
      const ids: string[] = []
      for (let i = 0; i < 5; i++) ids.push((await client.files.create({ file: await toFile(Buffer.from(`n${i}`), `${i}.txt`), purpose: i % 2 ? 'batch' : 'user_data' })).id)
      const raw = async (query: string) => (await (await fetch(`${t.gw.baseURL}/files?${query}`, { headers: { authorization: `Bearer ${client.apiKey}` } })).json()) as any
      const newest = await raw('limit=2')
      expect({ ids: newest.data.map((f: any) => f.id), has_more: newest.has_more, first: newest.first_id, last: newest.last_id }).toEqual({
        ids: [ids[4], ids[3]],
        has_more: true,
        first: ids[4],
        last: ids[3],
      })
      const next = await raw(`limit=2&after=${ids[3]}`)
      expect(next.data.map((f: any) => f.id)).toEqual([ids[2], ids[1]])
      const oldest = await raw('order=asc&limit=10')
      expect({ ids: oldest.data.map((f: any) => f.id), has_more: oldest.has_more }).toEqual({ ids, has_more: false })
      expect((await raw('purpose=batch')).data.map((f: any) => f.id)).toEqual([ids[3], ids[1]])
      // The SDK's auto-paging walks every page with `after`.
      const all: string[] = []
      for await (const file of client.files.list({ limit: 2, order: 'asc' })) all.push(file.id)
      expect(all).toEqual(ids)
      const bad = await fetch(`${t.gw.baseURL}/files?limit=0`, { headers: { authorization: `Bearer ${client.apiKey}` } })
      expect({ status: bad.status, param: ((await bad.json()) as any).error.param }).toEqual({ status: 400, param: 'limit' })
    })

    test('another key gets 404 on every route of a file it does not own, and never sees it listed', async () => {
      const alice = await keyClient('files-alice')
      const bob = await keyClient('files-bob')
      const file = await alice.files.create({ file: await toFile(Buffer.from('alice only'), 'secret.txt'), purpose: 'user_data' })
      expect(await failure(bob.files.retrieve(file.id))).toBeInstanceOf(NotFoundError)
      expect(await failure(bob.files.content(file.id))).toBeInstanceOf(NotFoundError)
      expect(await failure(bob.files.delete(file.id))).toBeInstanceOf(NotFoundError)
      const bobs = await bob.files.list()
      expect(bobs.data.map((f) => f.id)).not.toContain(file.id)
      // Still alice's, whole.
      expect(await (await alice.files.content(file.id)).text()).toBe('alice only')
    })

    test('fields may come after the file (the TypeScript SDK sends them in the order of the call)', async () => {
      const { res, body } = await post(
        form([
          ['file', ['late.txt', new Uint8Array([1, 2, 3])]],
          ['purpose', 'user_data'],
        ]),
      )
      expect({ status: res.status, bytes: body.bytes, purpose: body.purpose }).toEqual({ status: 200, bytes: 3, purpose: 'user_data' })
    })

    test('bad uploads are refused with their status, and audited', async () => {
      const cases: [string, Promise<{ res: Response; body: any }>, number, string][] = [
        ['no purpose', post(form([['file', ['a.txt', new Uint8Array(4)]]])), 400, 'purpose'],
        [
          'an unknown purpose',
          post(
            form([
              ['purpose', 'nonsense'],
              ['file', ['a.txt', new Uint8Array(4)]],
            ]),
          ),
          400,
          'purpose',
        ],
        ['no file', post(form([['purpose', 'batch']])), 400, 'file'],
        [
          'two files',
          post(
            form([
              ['purpose', 'batch'],
              ['file', ['a.txt', new Uint8Array(4)]],
              ['file', ['b.txt', new Uint8Array(4)]],
            ]),
          ),
          400,
          'file',
        ],
        [
          'an expiry too short',
          post(
            form([
              ['purpose', 'batch'],
              ['expires_after[anchor]', 'created_at'],
              ['expires_after[seconds]', '60'],
              ['file', ['a.txt', new Uint8Array(4)]],
            ]),
          ),
          400,
          'expires_after[seconds]',
        ],
        [
          'an unknown field',
          post(
            form([
              ['purpose', 'batch'],
              ['colour', 'blue'],
              ['file', ['a.txt', new Uint8Array(4)]],
            ]),
          ),
          400,
          'colour',
        ],
        ['a JSON body', post(JSON.stringify({ purpose: 'batch' }), { 'content-type': 'application/json' }), 415, 'content-type'],
        [
          'a file over the limit',
          post(
            form([
              ['purpose', 'batch'],
              ['file', ['big.bin', new Uint8Array(MAX_FILE + 1)]],
            ]),
          ),
          413,
          '',
        ],
      ]
      for (const [what, sent, status, param] of cases) {
        const { res, body } = await sent
        expect({ what, status: res.status, param: body.error.param ?? '' }).toEqual({ what, status, param })
        const entry = await t.audit.entryFor(res.headers.get('x-request-id')!)
        expect({ what, status: entry.status_code, code: entry.data.error_code }).toEqual({ what, status, code: body.error.code })
      }
      // Nothing of the refused uploads is listed.
      const listed = await t.openai.files.list()
      expect(listed.data.filter((f) => ['a.txt', 'b.txt', 'big.bin'].includes(f.filename))).toEqual([])
    })

    test('an upload in parts (sent in parallel) completes into one file, in the order named; the md5 is checked', async () => {
      const client = await keyClient('uploads-owner')
      const pieces = [bytesOf(1024 * 1024), bytesOf(700_000), bytesOf(33)]
      const whole = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0))
      pieces.reduce((at, p) => (whole.set(p, at), at + p.length), 0)
      const upload = await client.uploads.create({ bytes: whole.length, filename: 'big.jsonl', mime_type: 'application/jsonl', purpose: 'batch' })
      expect(upload).toMatchObject({ object: 'upload', bytes: whole.length, filename: 'big.jsonl', purpose: 'batch', status: 'pending', file: null })
      expect(upload.expires_at).toBe(upload.created_at + 3600)
      const parts = await Promise.all(pieces.map((p, i) => client.uploads.parts.create(upload.id, { data: new File([p], `part${i}`) })))
      for (const part of parts) expect(part).toMatchObject({ object: 'upload.part', upload_id: upload.id })
      const md5 = new Bun.CryptoHasher('md5').update(whole).digest('hex')
      const done = await client.uploads.complete(upload.id, { part_ids: parts.map((p) => p.id), md5 })
      expect(done).toMatchObject({ id: upload.id, status: 'completed', file: { object: 'file', bytes: whole.length, filename: 'big.jsonl', purpose: 'batch' } })
      const back = new Uint8Array(await (await client.files.content(done.file!.id)).arrayBuffer())
      expect(sha256(back)).toBe(sha256(whole))
      // Completed: no more parts, no second completion.
      const late = await failure(client.uploads.parts.create(upload.id, { data: new File([pieces[2]!], 'again') }))
      expect(late).toMatchObject({ status: 400, code: 'upload_not_pending' })
    })

    test('a completion whose parts do not add up, or whose md5 differs, is refused and makes no file; a cancelled upload takes no part', async () => {
      const client = await keyClient('uploads-refused')
      const upload = await client.uploads.create({ bytes: 10, filename: 'ten.txt', mime_type: 'text/plain', purpose: 'user_data' })
      const five = await client.uploads.parts.create(upload.id, { data: new File(['12345'], 'a') })
      expect(await failure(client.uploads.complete(upload.id, { part_ids: [five.id] }))).toMatchObject({ status: 400, code: 'upload_size_mismatch' })
      const other = await client.uploads.parts.create(upload.id, { data: new File(['67890'], 'b') })
      expect(await failure(client.uploads.complete(upload.id, { part_ids: [five.id, five.id] }))).toMatchObject({ status: 400, param: 'part_ids.1' })
      expect(await failure(client.uploads.complete(upload.id, { part_ids: [five.id, 'part_nope'] }))).toMatchObject({ status: 400, param: 'part_ids.1' })
      expect(await failure(client.uploads.complete(upload.id, { part_ids: [five.id, other.id], md5: '0'.repeat(32) }))).toMatchObject({ status: 400, code: 'md5_mismatch' })
      expect((await client.files.list()).data).toEqual([])
      // A part larger than the upload is refused as it arrives.
      expect(await failure(client.uploads.parts.create(upload.id, { data: new File([new Uint8Array(11)], 'c') }))).toMatchObject({ status: 413 })
      expect(await client.uploads.cancel(upload.id)).toMatchObject({ id: upload.id, status: 'cancelled', file: null })
      expect(await failure(client.uploads.parts.create(upload.id, { data: new File(['x'], 'd') }))).toMatchObject({ status: 400, code: 'upload_not_pending' })
      expect(await failure(client.uploads.complete(upload.id, { part_ids: [five.id, other.id] }))).toMatchObject({ status: 400, code: 'upload_not_pending' })
      // The cancelled upload's parts are gone from the byte store.
      expect(await t.gw.gateway.files.blobs.read(five.id)).toBeUndefined()
      expect(await failure(client.uploads.create({ bytes: MAX_FILE + 1, filename: 'x', mime_type: 'text/plain', purpose: 'batch' }))).toMatchObject({ status: 400, param: 'bytes' })
    })

    test('a client that goes away mid-upload leaves no bytes and no record; the attempt is audited', async () => {
      /** What the byte store holds: the local directory's entries, or the bucket's objects. */
      const stored = async () => {
        if (store === 'local') return readdirSync((t.gw.gateway.files.blobs as LocalBlobStore).directory).length
        const client = new S3Client({ bucket: storeEnv.FILES_S3_BUCKET, endpoint: storeEnv.FILES_S3_ENDPOINT, ...S3_TEST_CREDENTIALS })
        return (await client.list({ prefix: 'files/' })).contents?.length ?? 0
      }
      const before = await stored()
      const requestId = crypto.randomUUID()
      const head = `--B\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nbatch\r\n--B\r\nContent-Disposition: form-data; name="file"; filename="cut.bin"\r\n\r\n`
      const url = new URL(t.gw.url)
      const raw = await rawHttp(
        t.gw.url,
        postHead('/v1/files', url.host, {
          authorization: `Bearer ${t.master}`,
          'content-type': 'multipart/form-data; boundary=B',
          'content-length': '3000000',
          'x-request-id': requestId,
        }),
      )
      await raw.writeAll(head)
      // Past one S3 part (and one local flush), so bytes were really written before the client went.
      for (let i = 0; i < 2; i++) await raw.writeAll(new Uint8Array(1024 * 1024).fill(i + 1))
      await Bun.sleep(200)
      raw.end()
      const entry = await t.audit.entryFor(requestId)
      expect({ status: entry.status_code, code: entry.data.error_code }).toEqual({ status: 400, code: 'request_body_incomplete' })
      await t.audit.eventually(stored, (n) => n === before)
      expect((await t.openai.files.list()).data.filter((f) => f.filename === 'cut.bin')).toEqual([])
    })

    test("the audit entry records the parts' names, sizes and SHA-256, never the bytes", async () => {
      const bytes = new TextEncoder().encode('{"custom_id":"zanzibar-secret"}\n')
      const { data, response } = await t.openai.files.create({ file: await toFile(bytes, 'lines.jsonl'), purpose: 'batch' }).withResponse()
      const entry = await t.audit.entryFor(response.headers.get('x-request-id')!)
      expect(entry.data.request_parts).toEqual([
        { name: 'file', filename: 'lines.jsonl', content_type: 'application/octet-stream', bytes: bytes.length, sha256: sha256(bytes) },
        { name: 'purpose', filename: null, content_type: null, bytes: 5, sha256: sha256(new TextEncoder().encode('batch')) },
      ])
      expect(entry.data.response_body).toMatchObject({ id: data.id, bytes: bytes.length })
      expect(JSON.stringify(entry)).not.toContain('zanzibar-secret')
      const download = await t.openai.files.content(data.id).withResponse()
      expect(await download.data.text()).toContain('zanzibar-secret')
      const read = await t.audit.entryFor(download.response.headers.get('x-request-id')!)
      expect(read.data.response_binary).toEqual({ content_type: 'application/octet-stream', bytes: bytes.length, sha256: sha256(bytes) })
      expect(JSON.stringify(read)).not.toContain('zanzibar-secret')
    })
  })
}

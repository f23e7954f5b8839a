import { expect, test } from 'bun:test'
import { GatewayError } from '../errors/gateway-error.ts'
import { MultipartParser } from './multipart-parser.ts'
import { openUpload, READ_AHEAD_BYTES } from './multipart-upload.ts'

const BOUNDARY = 'upload-test-boundary'
const CHUNK = 64 * 1024

/** An upstream that reads the form slowly (a pause per chunk, so the fetch client waits on it) and hashes the file part. */
function slowUpstream() {
  const received = { sha256: '', fields: {} as Record<string, string> }
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    async fetch(req) {
      const parser = new MultipartParser(/boundary=([^;]+)/.exec(req.headers.get('content-type') ?? '')![1]!)
      const hash = new Bun.CryptoHasher('sha256')
      let n = 0
      for await (const chunk of req.body!) {
        for (const event of parser.push(chunk)) {
          if (event.kind === 'data') hash.update(event.bytes)
          else if (event.kind === 'field') received.fields[event.name] = event.value
        }
        if (++n % 16 === 0) await Bun.sleep(1)
      }
      received.sha256 = hash.digest('hex')
      return Response.json({ text: 'ok' })
    },
  })
  return { server, received }
}

/** A client's upload past the read-ahead, sent in 64 KiB chunks (model first), and the file's chunks and SHA-256. */
function clientUpload() {
  const fileChunks = Array.from({ length: (2 * READ_AHEAD_BYTES) / CHUNK + 3 }, (_, i) => new Uint8Array(CHUNK).fill(i % 251))
  const expected = new Bun.CryptoHasher('sha256')
  for (const chunk of fileChunks) expected.update(chunk)
  const encoder = new TextEncoder()
  const queue = [
    encoder.encode(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="model"\r\n\r\nwhisper-1\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\n`,
    ),
    ...fileChunks,
    encoder.encode(`\r\n--${BOUNDARY}--\r\n`),
  ]
  const request = new Request('http://gateway.test/v1/audio/transcriptions', {
    method: 'POST',
    headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    body: new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = queue.shift()
        if (next) controller.enqueue(next)
        else controller.close()
      },
    }),
  })
  return { request, fileChunks, sha256: expected.digest('hex') }
}

test("freeSpentChunks (the body goes to fetch): a file past the read-ahead reaches the upstream intact, and each of the client's chunks is freed once the upstream took it", async () => {
  const { request, fileChunks, sha256 } = clientUpload()
  const upload = await openUpload(request, { maxBytes: 64 * 1024 * 1024, deadlineMs: 30_000 })
  if (upload instanceof GatewayError) throw upload
  const form = upload.forUpstream({ model: 'whisper-1' }, { freeSpentChunks: true })
  if (form instanceof GatewayError) throw form
  const { server, received } = slowUpstream()
  try {
    const answer = await fetch(server.url, { method: 'POST', headers: { 'content-type': form.contentType }, body: form.body })
    expect(answer.status).toBe(200)
    expect(received.sha256).toBe(sha256)
    expect(received.fields).toEqual({ model: 'whisper-1' })
    expect(upload.parts.find((part) => part.name === 'file')).toMatchObject({ bytes: fileChunks.length * CHUNK, sha256 })
    expect(fileChunks.filter((chunk) => !chunk.buffer.detached)).toEqual([])
  } finally {
    server.stop(true)
  }
})

test('without freeSpentChunks a consumer may read the form whole in-process: the file is intact and no chunk is freed', async () => {
  const { request, fileChunks, sha256 } = clientUpload()
  const upload = await openUpload(request, { maxBytes: 64 * 1024 * 1024, deadlineMs: 30_000 })
  if (upload instanceof GatewayError) throw upload
  const form = upload.forUpstream({ model: 'whisper-1' })
  if (form instanceof GatewayError) throw form
  const read = await new Response(form.body, { headers: { 'content-type': form.contentType } }).formData()
  const file = read.get('file') as File
  expect(new Bun.CryptoHasher('sha256').update(await file.arrayBuffer()).digest('hex')).toBe(sha256)
  expect(read.get('model')).toBe('whisper-1')
  expect(fileChunks.some((chunk) => chunk.buffer.detached)).toBe(false)
})

/**
 * An upstream that refuses an upload before reading all of it (413 for a file too large, 400 for a bad form, after
 * the first part, after 8 MiB, from the headers alone, or answering and then no longer reading its connection): the
 * client gets the upstream's refusal at once, the gateway stops reading the client's upload, the audit entry is kept.
 * Bun's fetch answered at once in every case; the gateway was at fault when the client was slower than the upstream:
 * the upload's body, given up once the upstream had answered, ended the client's read, which the upload took for a
 * form cut short and answered 400 `malformed_form` instead of the upstream's 413.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { createServer, type Server, type Socket } from 'node:net'
import { auditAdmin } from '../helpers/audit-admin.ts'
import { type RunningGateway, startGateway, writeGatewayYaml } from '../helpers/gateway.ts'

const MASTER = 'master-key-for-tests-0123456789abcdef'
const BOUNDARY = 'refused-upload-boundary'
const FILE_BYTES = 48 * 1024 * 1024

/** How much of each upload the upstream read before it answered, by the model it was sent. */
const upstreamRead: Record<string, number> = {}
let refuseUnread = false
let upstream: ReturnType<typeof Bun.serve>
let gw: RunningGateway
/** A second provider whose server answers 413 once the request's headers are in, then stops reading the connection (keeping it open). */
let stalling: Server
const stallingSockets: Socket[] = []

function openaiError(status: number, message: string, code: string) {
  return Response.json({ error: { message, type: 'invalid_request_error', param: null, code } }, { status })
}

beforeAll(async () => {
  upstream = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    async fetch(req) {
      const path = new URL(req.url).pathname
      if (req.method === 'GET') return Response.json({ object: 'list', data: [{ id: 'whisper-1', object: 'model', created: 0, owned_by: 'openai' }] })
      if (path !== '/v1/audio/transcriptions') return openaiError(404, 'not found', 'unknown_url')
      // From the headers alone, not a byte of the body read.
      if (refuseUnread) return openaiError(413, 'Maximum content size limit (26214400) exceeded.', 'request_too_large')
      // The form's first part, which the gateway sends first: enough to know the model, as an upstream's router would.
      const reader = req.body!.getReader()
      const first = await reader.read()
      const text = first.done ? '' : new TextDecoder().decode(first.value)
      const model = /name="model"\r\n\r\n([^\r]*)/.exec(text)?.[1] ?? ''
      upstreamRead[model] = first.done ? 0 : first.value.byteLength
      if (model === 'whisper-1') {
        for (;;) {
          const { done, value } = await reader.read()
          if (done) break
          upstreamRead[model] += value.byteLength
        }
        return Response.json({ text: 'read it all' })
      }
      if (model === 'late-refusal') {
        while (upstreamRead[model] < 8 * 1024 * 1024) {
          const { done, value } = await reader.read()
          if (done) break
          upstreamRead[model] += value.byteLength
        }
      }
      // Answer now, with most of the upload unsent.
      reader.releaseLock()
      if (model === 'too-large' || model === 'late-refusal') return openaiError(413, 'Maximum content size limit (26214400) exceeded.', 'request_too_large')
      return openaiError(400, 'Invalid file format.', 'invalid_value')
    },
  })
  stalling = createServer((socket) => {
    stallingSockets.push(socket)
    let head = ''
    socket.on('data', (data) => {
      if (head.includes('\r\n\r\n')) return
      head += data.toString('latin1')
      if (!head.includes('\r\n\r\n')) return
      if (head.startsWith('GET ')) {
        const list = JSON.stringify({ object: 'list', data: [{ id: 'whisper-1', object: 'model', created: 0, owned_by: 'openai' }] })
        socket.end(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: ${list.length}\r\n\r\n${list}`)
        return
      }
      socket.pause()
      const body = JSON.stringify({ error: { message: 'Maximum content size limit (26214400) exceeded.', type: 'invalid_request_error', param: null, code: 'request_too_large' } })
      socket.write(`HTTP/1.1 413 Payload Too Large\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`)
    })
    socket.on('error', () => {})
  })
  await new Promise<void>((resolve) => stalling.listen(0, '127.0.0.1', resolve))
  const stallingPort = (stalling.address() as { port: number }).port
  gw = await startGateway({
    GATEWAY_MASTER_KEY: MASTER,
    GATEWAY_CONFIG: writeGatewayYaml(`providers:\n  stalling:\n    type: openai\n    base_url: http://127.0.0.1:${stallingPort}/v1\n    api_key: sk-stalling\n`),
    OPENAI_API_KEY: 'sk-openai-test',
    OPENAI_BASE_URL: `http://127.0.0.1:${upstream.port}/v1`,
    GATEWAY_MAX_UPLOAD_BYTES: String(FILE_BYTES * 2),
    GATEWAY_MODEL_ALIASES: JSON.stringify({ 'too-large': 'openai/too-large', 'bad-form': 'openai/bad-form' }),
    LOGGING_LOG_BODIES: 'true',
  })
})
afterAll(async () => {
  await gw.stop()
  upstream.stop(true)
  for (const socket of stallingSockets) socket.destroy()
  stalling.close()
})

/** A form sent as it is generated (chunked): model first, then `FILE_BYTES` of audio in 64 KiB chunks. */
function streamedForm(model: string, { slow = false } = {}): { body: ReadableStream<Uint8Array>; sent: () => number } {
  const encoder = new TextEncoder()
  let sent = 0
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      // A client on a slower link than the gateway's to the upstream: a pause every MiB.
      if (slow && sent % (1024 * 1024) === 0) await Bun.sleep(20)
      if (sent === 0) {
        controller.enqueue(
          encoder.encode(
            `--${BOUNDARY}\r\nContent-Disposition: form-data; name="model"\r\n\r\n${model}\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="long.wav"\r\nContent-Type: audio/wav\r\n\r\n`,
          ),
        )
      }
      if (sent >= FILE_BYTES) {
        controller.enqueue(encoder.encode(`\r\n--${BOUNDARY}--\r\n`))
        return controller.close()
      }
      controller.enqueue(new Uint8Array(64 * 1024).fill(sent % 251))
      sent += 64 * 1024
    },
  })
  return { body, sent: () => sent }
}

async function upload(model: string, options: { slow?: boolean } = {}) {
  const form = streamedForm(model, options)
  const res = await fetch(`${gw.url}/v1/audio/transcriptions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${MASTER}`, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    body: form.body,
    signal: AbortSignal.timeout(15_000),
  })
  return { res, body: (await res.json()) as { error?: { code?: string; message?: string } }, sent: form.sent() }
}

for (const [model, status, code, slow] of [
  ['too-large', 413, 'request_too_large', false],
  ['bad-form', 400, 'invalid_value', false],
  ['late-refusal', 413, 'request_too_large', true],
] as const) {
  test(`an upstream ${status} after ${model === 'late-refusal' ? "8 MiB of a slow client's" : 'the first part of an'} upload: the client gets the upstream's answer at once, the rest of the upload is not read, the audit entry is kept`, async () => {
    const t0 = performance.now()
    const { res, body, sent } = await upload(`openai/${model}`, { slow })
    expect(res.status).toBe(status)
    expect(body.error?.code).toBe(code)
    expect(performance.now() - t0).toBeLessThan(10_000)
    // The client was not made to send the whole upload for nothing.
    expect(sent).toBeLessThan(FILE_BYTES)
    const entry = await auditAdmin(gw.url, MASTER).entryFor(res.headers.get('x-request-id')!)
    expect(entry.status_code).toBe(status)
    expect(entry.data.request_parts).toContainEqual(expect.objectContaining({ name: 'model', filename: null }))
    // The gateway still serves the next upload whole.
    const next = await upload('openai/whisper-1')
    expect(next.res.status).toBe(200)
    expect(upstreamRead['whisper-1']).toBeGreaterThan(FILE_BYTES)
  }, 40_000)
}

test('an upstream 413 from the headers alone, not a byte of the body read: the same', async () => {
  refuseUnread = true
  try {
    const t0 = performance.now()
    const { res, body, sent } = await upload('openai/whisper-1')
    expect(res.status).toBe(413)
    expect(body.error?.code).toBe('request_too_large')
    expect(performance.now() - t0).toBeLessThan(10_000)
    expect(sent).toBeLessThan(FILE_BYTES)
    const entry = await auditAdmin(gw.url, MASTER).entryFor(res.headers.get('x-request-id')!)
    expect(entry.status_code).toBe(413)
  } finally {
    refuseUnread = false
  }
  expect((await upload('openai/whisper-1')).res.status).toBe(200)
}, 40_000)

test('an upstream that answers 413 and stops reading, its connection left open: the client gets the 413 at once, audited', async () => {
  const t0 = performance.now()
  const { res, body, sent } = await upload('stalling/whisper-1')
  expect(res.status).toBe(413)
  expect(body.error?.code).toBe('request_too_large')
  expect(performance.now() - t0).toBeLessThan(10_000)
  expect(sent).toBeLessThan(FILE_BYTES)
  const entry = await auditAdmin(gw.url, MASTER).entryFor(res.headers.get('x-request-id')!)
  expect(entry.status_code).toBe(413)
  expect(entry.data.request_parts).toContainEqual(expect.objectContaining({ name: 'model', filename: null }))
}, 40_000)

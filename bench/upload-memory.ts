/**
 * Resident memory of the gateway while a large multipart upload (a speech-to-text request) passes through it to an
 * upstream that reads and discards it (issue 27: ≤ 32 MiB over idle for a 200 MB upload). The gateway runs as its
 * own process (`bun src/main.ts`, SQLite, audit with bodies logged: each part is hashed for the audit entry); the
 * mock upstream and the client run in this one. The client sends the form chunked (no Content-Length) as it
 * generates it, model first; the file's SHA-256 computed here is compared with the audit entry's and with the
 * file the upstream received.
 *
 *   bun bench/upload-memory.ts [--mib 200] [--rounds 2]
 *
 * Prints idle RSS, the peak during each upload and its growth over idle, throughput, and the load average.
 */
import { loadavg } from 'node:os'
import { parseArgs } from 'node:util'
import { MultipartParser } from '../src/http/multipart-parser.ts'
import { peakRssDuring, rssMb, spawnGateway } from '../test/helpers/gateway-process.ts'
import { generatedForm } from './multipart-form.ts'

const { values: args } = parseArgs({ options: { mib: { type: 'string', default: '200' }, rounds: { type: 'string', default: '2' } } })
const fileBytes = Math.min(2048, Number(args.mib)) * 1024 * 1024
const rounds = Math.min(10, Number(args.rounds))
const MASTER = 'bench-master-key-0123456789abcdef'
const BOUNDARY = 'bench-upload-boundary'

let upstreamBytes = 0
/** The SHA-256 of the file part the upstream received, to compare with the client's. */
let upstreamSha256 = ''
const upstream = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  idleTimeout: 0,
  // Bun's default (128 MiB) would refuse the upload.
  maxRequestBodySize: Number.MAX_SAFE_INTEGER,
  async fetch(req) {
    if (!req.body) return Response.json({ object: 'list', data: [{ id: 'whisper-1', object: 'model', created: 0, owned_by: 'openai' }] })
    const boundary = /boundary=([^;]+)/.exec(req.headers.get('content-type') ?? '')?.[1] ?? ''
    const parser = new MultipartParser(boundary)
    const hash = new Bun.CryptoHasher('sha256')
    let inFile = false
    const reader = req.body.getReader()
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      upstreamBytes += value.byteLength
      for (const event of parser.push(value)) {
        if (event.kind === 'file') inFile = event.name === 'file'
        else if (event.kind === 'data' && inFile) hash.update(event.bytes)
      }
    }
    upstreamSha256 = hash.digest('hex')
    return Response.json({ text: 'discarded', usage: { type: 'duration', seconds: 1 } })
  },
})

/** The form, generated as it is read: model, then `bytes` of file in 64 KiB chunks; resolves the file's SHA-256. */
function uploadBody(bytes: number): { body: ReadableStream<Uint8Array>; sha256: Promise<string> } {
  return generatedForm(bytes, { boundary: BOUNDARY, field: { name: 'model', value: 'openai/whisper-1' }, file: { name: 'file', filename: 'long.wav', contentType: 'audio/wav' } })
}

const gateway = await spawnGateway({
  GATEWAY_MASTER_KEY: MASTER,
  GATEWAY_ALLOW_OPEN: 'false',
  OPENAI_API_KEY: 'sk-bench',
  OPENAI_BASE_URL: `http://127.0.0.1:${upstream.port}/v1`,
  GATEWAY_MAX_UPLOAD_BYTES: String(fileBytes + 1024 * 1024),
  GATEWAY_BODY_TIMEOUT_SECONDS: '600',
  LOGGING_LOG_BODIES: 'true',
  LOGGING_AUDIT_FLUSH_INTERVAL_MS: '50',
})
const pid = gateway.proc.pid

async function upload(bytes: number): Promise<{ status: number; sha256: string; requestId: string }> {
  const { body, sha256 } = uploadBody(bytes)
  const res = await fetch(`${gateway.url}/v1/audio/transcriptions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${MASTER}`, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    body,
  })
  await res.text()
  return { status: res.status, sha256: await sha256, requestId: res.headers.get('x-request-id') ?? '' }
}

async function auditedSha256(requestId: string): Promise<string | undefined> {
  for (let i = 0; i < 50; i++) {
    const res = await fetch(`${gateway.url}/admin/audit/log?search=${requestId}&limit=1`, { headers: { authorization: `Bearer ${MASTER}` } })
    const page = (await res.json()) as { entries?: { id: string }[] }
    const id = page.entries?.[0]?.id
    if (id) {
      const detail = (await (await fetch(`${gateway.url}/admin/audit/detail?log_id=${id}`, { headers: { authorization: `Bearer ${MASTER}` } })).json()) as {
        data?: { request_parts?: { name: string; sha256: string }[] }
      }
      return detail.data?.request_parts?.find((p) => p.name === 'file')?.sha256
    }
    await Bun.sleep(100)
  }
  return undefined
}

try {
  // Warm: the route, the audit writer, the upload path, with a small file.
  const warm = await upload(1024 * 1024)
  if (warm.status !== 200) throw new Error(`warm-up upload: ${warm.status} ${gateway.output().slice(-2000)}`)
  await Bun.sleep(2000)
  Bun.gc(true)
  const idle = rssMb(pid)
  console.log(`gateway idle RSS after a warm-up upload: ${idle.toFixed(1)} MiB`)
  for (let round = 1; round <= rounds; round++) {
    upstreamBytes = 0
    const t0 = performance.now()
    const work = upload(fileBytes)
    const peak = await peakRssDuring(pid, work, { everyMs: 5, killAboveMb: idle + 1024 })
    const { status, sha256, requestId } = await work
    const seconds = (performance.now() - t0) / 1000
    const audited = await auditedSha256(requestId)
    console.log(
      `round ${round}: ${fileBytes / 1024 / 1024} MiB upload → ${status}, upstream received ${(upstreamBytes / 1024 / 1024).toFixed(1)} MiB in ${seconds.toFixed(1)} s ` +
        `(${(fileBytes / 1024 / 1024 / seconds).toFixed(0)} MiB/s); peak RSS ${peak.toFixed(1)} MiB, growth over idle ${(peak - idle).toFixed(1)} MiB (target ≤ 32); ` +
        `audit sha256 ${audited === sha256 ? 'matches' : `differs (${audited} vs ${sha256})`}, upstream's ${upstreamSha256 === sha256 ? 'matches' : `differs (${upstreamSha256})`}`,
    )
  }
  const [l1, l5, l15] = loadavg()
  console.log(`load average: ${l1!.toFixed(2)} ${l5!.toFixed(2)} ${l15!.toFixed(2)} (${navigator.hardwareConcurrency} cores)`)
} finally {
  await gateway.stop()
  upstream.stop(true)
}

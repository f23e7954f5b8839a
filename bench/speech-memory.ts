/**
 * Resident memory of the gateway while a long speech answer (`POST /v1/audio/speech`, a binary answer passed through
 * the byte pump, src/pipeline/byte-pump.ts) streams from an upstream to the client (issue 27: ≤ 32 MiB over idle).
 * The gateway runs as its own process (`bun src/main.ts`, SQLite, audit with bodies logged: the audio is hashed for
 * the audit entry); the mock upstream and the client run in this one. The upstream generates `--mib` of audio in
 * 64 KiB chunks as it is read; the client reads it as it comes and compares its SHA-256 with the upstream's and the
 * audit entry's.
 *
 *   bun bench/speech-memory.ts [--mib 200] [--rounds 2]
 *
 * Prints idle RSS, the peak during each answer and its growth over idle, throughput, and the load average.
 */
import { loadavg } from 'node:os'
import { parseArgs } from 'node:util'
import { peakRssDuring, rssMb, spawnGateway } from '../test/helpers/gateway-process.ts'

const { values: args } = parseArgs({ options: { mib: { type: 'string', default: '200' }, rounds: { type: 'string', default: '2' } } })
const answerBytes = Math.min(2048, Number(args.mib)) * 1024 * 1024
const rounds = Math.min(10, Number(args.rounds))
const MASTER = 'bench-master-key-0123456789abcdef'
const CHUNK = 64 * 1024

let bytesToSend = 1024 * 1024
let upstreamSha256 = ''
const upstream = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  idleTimeout: 0,
  async fetch(req) {
    if (req.method === 'GET') return Response.json({ object: 'list', data: [{ id: 'tts-1', object: 'model', created: 0, owned_by: 'openai' }] })
    await req.text()
    const total = bytesToSend
    const hash = new Bun.CryptoHasher('sha256')
    let sent = 0
    const audio = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          if (sent >= total) {
            upstreamSha256 = hash.digest('hex')
            return controller.close()
          }
          // Bytes that differ from chunk to chunk, so a chunk lost, repeated or overwritten would not hash the same.
          const piece = new Uint8Array(Math.min(CHUNK, total - sent)).fill((sent / CHUNK) % 251)
          hash.update(piece)
          controller.enqueue(piece)
          sent += piece.byteLength
        },
      },
      { highWaterMark: 0 },
    )
    return new Response(audio, { headers: { 'content-type': 'audio/mpeg' } })
  },
})

const gateway = await spawnGateway({
  GATEWAY_MASTER_KEY: MASTER,
  GATEWAY_ALLOW_OPEN: 'false',
  OPENAI_API_KEY: 'sk-bench',
  OPENAI_BASE_URL: `http://127.0.0.1:${upstream.port}/v1`,
  LOGGING_LOG_BODIES: 'true',
  LOGGING_AUDIT_FLUSH_INTERVAL_MS: '50',
})
const pid = gateway.proc.pid

async function speech(bytes: number): Promise<{ status: number; received: number; sha256: string; requestId: string }> {
  bytesToSend = bytes
  const res = await fetch(`${gateway.url}/v1/audio/speech`, {
    method: 'POST',
    headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'openai/tts-1', voice: 'alloy', input: 'A long reading of a long book.', response_format: 'mp3' }),
  })
  const hash = new Bun.CryptoHasher('sha256')
  let received = 0
  for await (const chunk of res.body!) {
    hash.update(chunk)
    received += chunk.byteLength
  }
  return { status: res.status, received, sha256: hash.digest('hex'), requestId: res.headers.get('x-request-id') ?? '' }
}

async function auditedSha256(requestId: string): Promise<string | undefined> {
  for (let i = 0; i < 50; i++) {
    const res = await fetch(`${gateway.url}/admin/audit/log?search=${requestId}&limit=1`, { headers: { authorization: `Bearer ${MASTER}` } })
    const page = (await res.json()) as { entries?: { id: string }[] }
    const id = page.entries?.[0]?.id
    if (id) {
      const detail = (await (await fetch(`${gateway.url}/admin/audit/detail?log_id=${id}`, { headers: { authorization: `Bearer ${MASTER}` } })).json()) as {
        data?: { response_binary?: { sha256: string } }
      }
      return detail.data?.response_binary?.sha256
    }
    await Bun.sleep(100)
  }
  return undefined
}

try {
  const warm = await speech(1024 * 1024)
  if (warm.status !== 200) throw new Error(`warm-up speech: ${warm.status} ${gateway.output().slice(-2000)}`)
  await Bun.sleep(2000)
  Bun.gc(true)
  const idle = rssMb(pid)
  console.log(`gateway idle RSS after a warm-up answer: ${idle.toFixed(1)} MiB`)
  for (let round = 1; round <= rounds; round++) {
    const t0 = performance.now()
    const work = speech(answerBytes)
    const peak = await peakRssDuring(pid, work, { everyMs: 5, killAboveMb: idle + 1024 })
    const { status, received, sha256, requestId } = await work
    const seconds = (performance.now() - t0) / 1000
    const audited = await auditedSha256(requestId)
    console.log(
      `round ${round}: ${answerBytes / 1024 / 1024} MiB speech answer → ${status}, client received ${(received / 1024 / 1024).toFixed(1)} MiB in ${seconds.toFixed(1)} s ` +
        `(${(received / 1024 / 1024 / seconds).toFixed(0)} MiB/s); peak RSS ${peak.toFixed(1)} MiB, growth over idle ${(peak - idle).toFixed(1)} MiB (target ≤ 32); ` +
        `sha256 ${sha256 === upstreamSha256 ? "matches the upstream's" : 'differs from the upstream'}, audit's ${audited === sha256 ? 'matches' : `differs (${audited})`}`,
    )
  }
  const [l1, l5, l15] = loadavg()
  console.log(`load average: ${l1!.toFixed(2)} ${l5!.toFixed(2)} ${l15!.toFixed(2)} (${navigator.hardwareConcurrency} cores)`)
} finally {
  await gateway.stop()
  upstream.stop(true)
}

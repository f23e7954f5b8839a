/**
 * A large file through the Files API (issue 28): uploaded with POST /v1/files and downloaded with GET
 * /v1/files/{id}/content, against a plain copy of the same bytes through a trivial Bun.serve relay
 * (bench/file-relay.ts: the body written to a file as it arrives, streamed back), in one run. The gateway runs as
 * its own process (`bun src/main.ts`, SQLite, the local byte store or `--store s3` on moto, the audit log with its
 * defaults, or `--bodies` to log bodies: the download is then hashed a second time for the audit entry; the upload's
 * SHA-256 is always taken, for the file's record); the relay in another; the client here sends
 * the form chunked (no Content-Length) as it generates it and hashes what it downloads.
 *
 *   bun bench/file-memory.ts [--mib 512] [--rounds 3] [--store local|s3] [--bodies]
 *
 * Prints the gateway's idle RSS, the peak during each upload and download and its growth over idle (target ≤ 32
 * MiB), each side's wall time for upload + download and the ratio gateway / relay per round and over the rounds
 * (target within 5 %), the SHA-256 checks, and the load average.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { peakRssDuring, rssMb, spawnGateway } from '../test/helpers/gateway-process.ts'
import { S3_TEST_CREDENTIALS, startS3Server } from '../test/helpers/s3-server.ts'
import { generatedForm } from './multipart-form.ts'

const { values: args } = parseArgs({
  options: {
    mib: { type: 'string', default: '512' },
    rounds: { type: 'string', default: '3' },
    store: { type: 'string', default: 'local' },
    bodies: { type: 'boolean', default: false },
  },
})
const fileBytes = Math.min(2048, Number(args.mib)) * 1024 * 1024
const rounds = Math.min(10, Number(args.rounds))
const MASTER = 'bench-master-key-0123456789abcdef'
const BOUNDARY = 'bench-file-boundary'

/** The form, generated as it is read: purpose, then `bytes` of file in 64 KiB chunks; resolves the file's SHA-256. */
function uploadBody(bytes: number): { body: ReadableStream<Uint8Array>; sha256: Promise<string> } {
  return generatedForm(bytes, {
    boundary: BOUNDARY,
    field: { name: 'purpose', value: 'batch' },
    file: { name: 'file', filename: 'big.jsonl', contentType: 'application/octet-stream' },
  })
}

/** Reads a download to its end; its size and SHA-256. */
async function drain(res: Response): Promise<{ bytes: number; sha256: string }> {
  const hash = new Bun.CryptoHasher('sha256')
  let bytes = 0
  for await (const chunk of res.body!) {
    bytes += chunk.byteLength
    hash.update(chunk)
  }
  return { bytes, sha256: hash.digest('hex') }
}

const headers = { authorization: `Bearer ${MASTER}`, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` }

/** Upload then download through the gateway; the bytes of the form's file part come back. */
async function throughGateway(url: string) {
  const { body, sha256 } = uploadBody(fileBytes)
  const t0 = performance.now()
  const created = await fetch(`${url}/v1/files`, { method: 'POST', headers, body })
  const file = (await created.json()) as { id: string; bytes: number; error?: unknown }
  if (created.status !== 200) throw new Error(`upload: ${created.status} ${JSON.stringify(file)}`)
  const uploadedMs = performance.now() - t0
  const back = await drain(await fetch(`${url}/v1/files/${file.id}/content`, { headers: { authorization: `Bearer ${MASTER}` } }))
  const totalMs = performance.now() - t0
  await fetch(`${url}/v1/files/${file.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${MASTER}` } })
  return { uploadedMs, totalMs, intact: back.bytes === fileBytes && back.sha256 === (await sha256) }
}

/** The same form through the relay (it stores the whole body: the form's few hundred bytes more than the file). */
async function throughRelay(url: string) {
  const { body } = uploadBody(fileBytes)
  const t0 = performance.now()
  await (await fetch(url, { method: 'POST', headers, body })).text()
  const uploadedMs = performance.now() - t0
  const back = await drain(await fetch(url))
  return { uploadedMs, totalMs: performance.now() - t0, intact: back.bytes > fileBytes }
}

const scratch = mkdtempSync(join(tmpdir(), 'file-bench-'))
const s3 = args.store === 's3' ? await startS3Server() : undefined
const storeEnv: Record<string, string> = s3
  ? {
      FILES_STORE: 's3',
      FILES_S3_BUCKET: await s3.createBucket(),
      FILES_S3_ENDPOINT: s3.endpoint,
      FILES_S3_REGION: S3_TEST_CREDENTIALS.region,
      FILES_S3_ACCESS_KEY_ID: S3_TEST_CREDENTIALS.accessKeyId,
      FILES_S3_SECRET_ACCESS_KEY: S3_TEST_CREDENTIALS.secretAccessKey,
    }
  : { FILES_DIRECTORY: join(scratch, 'files') }
const gateway = await spawnGateway({
  GATEWAY_MASTER_KEY: MASTER,
  GATEWAY_ALLOW_OPEN: 'false',
  FILES_MAX_FILE_BYTES: String(fileBytes),
  LOGGING_LOG_BODIES: args.bodies ? 'true' : 'false',
  ...storeEnv,
})
const relayProc = Bun.spawn(['bun', join(import.meta.dir, 'file-relay.ts'), scratch], { stdout: 'pipe', stderr: 'inherit' })
const relayUrl = await firstLine(relayProc.stdout)

async function firstLine(stream: ReadableStream<Uint8Array>): Promise<string> {
  let text = ''
  for await (const chunk of stream) {
    text += new TextDecoder().decode(chunk)
    if (text.includes('\n')) break
  }
  return text.split('\n')[0]!.trim()
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

try {
  const pid = gateway.proc.pid
  // Warm both (the routes, the audit writer, the store, the relay), one full-size round each.
  const warm = await throughGateway(gateway.url).catch((error) => {
    throw new Error(`warm-up: ${error.message}\n${gateway.output().slice(-2000)}`)
  })
  if (!warm.intact) throw new Error('warm-up download differs from the upload')
  await throughRelay(relayUrl)
  await Bun.sleep(2000)
  Bun.gc(true)
  const idle = rssMb(pid)
  console.log(`gateway idle RSS after a warm-up: ${idle.toFixed(1)} MiB; ${fileBytes / 1024 / 1024} MiB file, ${args.store} byte store`)
  const gatewayMs: number[] = []
  const relayMs: number[] = []
  let worstGrowth = 0
  for (let round = 1; round <= rounds; round++) {
    // Alternated, so a burst of load on the shared machine hits both sides alike.
    const relay = await throughRelay(relayUrl)
    const work = throughGateway(gateway.url)
    const peak = await peakRssDuring(pid, work, { everyMs: 5, killAboveMb: idle + 1024 })
    const through = await work
    gatewayMs.push(through.totalMs)
    relayMs.push(relay.totalMs)
    worstGrowth = Math.max(worstGrowth, peak - idle)
    console.log(
      `round ${round}: gateway upload ${(through.uploadedMs / 1000).toFixed(2)} s + download ${((through.totalMs - through.uploadedMs) / 1000).toFixed(2)} s = ${(through.totalMs / 1000).toFixed(2)} s ` +
        `(${through.intact ? 'bytes intact' : 'BYTES DIFFER'}); relay ${(relay.uploadedMs / 1000).toFixed(2)} s + ${((relay.totalMs - relay.uploadedMs) / 1000).toFixed(2)} s = ${(relay.totalMs / 1000).toFixed(2)} s; ` +
        `ratio ${(through.totalMs / relay.totalMs).toFixed(3)}; peak RSS ${peak.toFixed(1)} MiB, growth over idle ${(peak - idle).toFixed(1)} MiB`,
    )
  }
  const ratio = median(gatewayMs) / median(relayMs)
  console.log(
    `median: gateway ${(median(gatewayMs) / 1000).toFixed(2)} s, relay ${(median(relayMs) / 1000).toFixed(2)} s, ratio ${ratio.toFixed(3)} (target ≤ 1.05); ` +
      `largest RSS growth over idle ${worstGrowth.toFixed(1)} MiB (target ≤ 32)`,
  )
  const [l1, l5, l15] = loadavg()
  console.log(`load average: ${l1!.toFixed(2)} ${l5!.toFixed(2)} ${l15!.toFixed(2)} (${navigator.hardwareConcurrency} cores)`)
} finally {
  await gateway.stop()
  relayProc.kill()
  await s3?.stop()
  rmSync(scratch, { recursive: true, force: true })
}

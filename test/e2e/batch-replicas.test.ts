/**
 * Two gateway processes on one PostgreSQL (and one files directory): the replica running a batch is killed
 * (SIGKILL) mid-batch; the other takes the batch over once the dead one's lease is gone and finishes it. No line is
 * lost (every custom_id is in the output or the error file once) and none is run twice (the upstream saw each
 * line's marker at most once); a line the dead replica had in flight is reported `batch_line_interrupted`.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import OpenAI, { toFile } from 'openai'
import { spawnGateway, type GatewayProcess } from '../helpers/gateway-process.ts'
import { startMockOpenAI, type MockUpstream } from '../helpers/mock-openai-upstream.ts'
import { postgresAvailable, sharedPostgres } from '../helpers/postgres-server.ts'

const MASTER = 'master-key-for-batch-replicas-0123456789'
const LINES = 40
const CONCURRENCY = 3
let mock: MockUpstream
const running: GatewayProcess[] = []

beforeAll(() => {
  if (postgresAvailable()) mock = startMockOpenAI()
})
afterAll(async () => {
  for (const g of running) if (g.proc.exitCode === null && !g.proc.killed) await g.stop()
  mock?.stop()
})

const sdk = (g: GatewayProcess) => new OpenAI({ apiKey: MASTER, baseURL: `${g.url}/v1`, maxRetries: 0 })

async function until<T>(what: string, probe: () => Promise<T | undefined | false>, ms: number): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const value = await probe()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(50)
  }
}

describe.skipIf(!postgresAvailable())('a batch survives the replica running it', () => {
  test('killed mid-batch, the other replica finishes it: no line lost, none run twice', async () => {
    const env = {
      DATABASE_URL: await (await sharedPostgres()).freshDatabase(),
      GATEWAY_MASTER_KEY: MASTER,
      OPENAI_API_KEY: 'sk-up',
      OPENAI_BASE_URL: mock.url,
      FILES_DIRECTORY: mkdtempSync(join(tmpdir(), 'gw-batch-files-')),
      BATCHES_CONCURRENCY: String(CONCURRENCY),
      BATCHES_POLL_SECONDS: '1',
      BATCHES_GATEWAY_RUN_ALL: 'true',
    }
    const a = await spawnGateway(env)
    running.push(a)
    const marker = crypto.randomUUID()
    const lines = Array.from({ length: LINES }, (_, i) =>
      JSON.stringify({
        custom_id: `line-${i}`,
        method: 'POST',
        url: '/v1/chat/completions',
        body: { model: 'openai/slow-first-byte', metadata: { delay_ms: '150' }, messages: [{ role: 'user', content: `${marker}:${i}` }] },
      }),
    )
    const input = await sdk(a).files.create({ file: await toFile(Buffer.from(`${lines.join('\n')}\n`), 'input.jsonl'), purpose: 'batch' })
    const created = await sdk(a).batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' })
    // A has begun (it was told at once); B starts now, finds the batch leased, and waits.
    await until('A to finish some lines', async () => ((await sdk(a).batches.retrieve(created.id)).request_counts?.completed ?? 0) >= 6, 20_000)
    const b = await spawnGateway(env)
    running.push(b)
    const before = (await sdk(b).batches.retrieve(created.id)).request_counts!
    expect(before.completed).toBeLessThan(LINES)

    a.proc.kill('SIGKILL')
    await a.proc.exited
    const done = await until(
      'B to finish the batch',
      async () => {
        const batch = await sdk(b).batches.retrieve(created.id)
        return batch.status === 'completed' && batch
      },
      30_000,
    )
    const { total, completed, failed } = done.request_counts!
    expect(total).toBe(LINES)
    expect(completed + failed).toBe(LINES)
    expect(completed).toBeGreaterThan(before.completed)

    const read = async (id: string | null | undefined) =>
      id
        ? (await (await sdk(b).files.content(id)).text())
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l))
        : []
    const output = await read(done.output_file_id)
    const errors = await read(done.error_file_id)
    // No line lost: each custom_id once, in one file or the other.
    expect([...output, ...errors].map((l) => l.custom_id).sort()).toEqual(lines.map((_, i) => `line-${i}`).sort())
    // Only lines in flight on A when it died failed, and only as interrupted.
    console.log(`killed after ${before.completed} of ${LINES} lines; ${failed} in flight reported interrupted, ${completed} answered`)
    expect(errors.length).toBe(failed)
    expect(errors.length).toBeLessThanOrEqual(CONCURRENCY)
    for (const line of errors) expect(line.error.code).toBe('batch_line_interrupted')
    // None run twice: the upstream saw each line at most once, and every answered line exactly once.
    const seen = new Map<string, number>()
    for (const request of mock.requests) {
      const content = (request.body as { messages?: { content?: unknown }[] })?.messages?.[0]?.content
      if (typeof content === 'string' && content.startsWith(`${marker}:`)) seen.set(content, (seen.get(content) ?? 0) + 1)
    }
    expect([...seen.values()].every((n) => n === 1)).toBe(true)
    for (const line of output) expect(seen.get(`${marker}:${line.custom_id.slice('line-'.length)}`)).toBe(1)
  }, 90_000)
})

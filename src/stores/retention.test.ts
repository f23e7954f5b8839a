import { afterAll, expect, test } from 'bun:test'
import { loadConfig } from '../config/load.ts'
import { createLogger } from '../log/logger.ts'
import { openStores } from './open.ts'
import { Retention } from './retention.ts'

const stores = await openStores(loadConfig({ env: { GATEWAY_DB_PATH: ':memory:' }, cwd: '/nonexistent-dir-for-tests' }), createLogger('silent'))
afterAll(() => stores.close())

const DAY = 86_400_000
const owner = { principalId: 'key_1', userPath: '' }
const thread = (id: string) => ({ id, owner, providerName: 'mistral', native: false, items: [{ role: 'user', content: id }], response: null })

function retention(now: () => number, lines: Record<string, unknown>[] = []) {
  const log = createLogger('info', { write: (line: string) => void lines.push(JSON.parse(line)) })
  return new Retention(
    stores.responseThreads,
    { job: 'response-thread-retention', rows: 'Responses threads', retentionDays: 30, batchSize: 2, pauseMs: 1, lease: stores.lease, now },
    log,
  )
}

test('threads older than the window are deleted, batch by batch; younger ones stay', async () => {
  for (const id of ['resp_r1', 'resp_r2', 'resp_r3']) await stores.responseThreads.save(thread(id))
  const lines: Record<string, unknown>[] = []
  expect(await retention(() => Date.now() + 29 * DAY, lines).runOnce()).toBe(0)
  expect(await stores.responseThreads.get('resp_r1', owner)).toEqual(thread('resp_r1'))
  expect(await retention(() => Date.now() + 31 * DAY, lines).runOnce()).toBe(3)
  for (const id of ['resp_r1', 'resp_r2', 'resp_r3']) expect(await stores.responseThreads.get(id, owner)).toBeUndefined()
  expect(lines).toEqual([expect.objectContaining({ msg: 'expired Responses threads deleted', deleted: 3, retention_days: 30, job: 'response-thread-retention' })])
})

test('a run is skipped while another holds the job’s lease', async () => {
  await stores.responseThreads.save(thread('resp_leased'))
  let release!: () => void
  const held = stores.lease.runExclusive('response-thread-retention', () => new Promise<void>((r) => (release = r)))
  expect(await retention(() => Date.now() + 31 * DAY).runOnce()).toBe(0)
  expect(await stores.responseThreads.get('resp_leased', owner)).toBeDefined()
  release()
  await held
  expect(await retention(() => Date.now() + 31 * DAY).runOnce()).toBe(1)
})

test('a failing delete is logged and retried at the next run, not thrown', async () => {
  const lines: Record<string, unknown>[] = []
  const log = createLogger('info', { write: (line: string) => void lines.push(JSON.parse(line)) })
  let calls = 0
  const failing = {
    deleteOlderThan: async () => {
      calls++
      throw new Error('database is locked')
    },
  }
  const job = new Retention(failing, { job: 'response-thread-retention', rows: 'Responses threads', retentionDays: 30 }, log)
  expect(await job.runOnce()).toBe(0)
  expect(await job.runOnce()).toBe(0)
  expect(calls).toBe(2)
  expect(lines[0]).toMatchObject({ level: 50, job: 'response-thread-retention', msg: 'deleting expired Responses threads failed; retrying at the next interval' })
})

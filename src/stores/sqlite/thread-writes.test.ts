/**
 * The write thread's SQLite half loads no package: it is a second JavaScript engine in every process, and each
 * module it imports is held again in that engine's heap (drizzle-orm alone was about 7 MiB there under `bun`;
 * docs/workers.md, "Memory per process").
 */
import { expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { join } from 'node:path'
import { usageRecord } from '../../../test/helpers/store-records.ts'
import { tempDirs } from '../../../test/helpers/temp-dirs.ts'
import { migrateSqlite } from './migrate.ts'
import { sqliteUsageStore } from './usage.ts'

const dirs = tempDirs('gw-thread-writes-')

// Run in a fresh process, as the thread runs in a fresh engine: what it holds after opening and writing a batch.
const CHILD = `
const { openThreadWrites } = await import(process.env.THREAD_WRITES)
const writes = openThreadWrites(process.env.DB_PATH)
await writes.writeUsage([JSON.parse(process.env.RECORD)])
console.log(JSON.stringify(Object.keys(require.cache)))
`

test('the write thread opens SQLite and stores usage records without loading drizzle-orm or any other package', async () => {
  const path = join(dirs(), 'gateway.db')
  migrateSqlite(new Database(path, { create: true, strict: true }))
  const record = usageRecord('thread-1', { prompt_tokens: 7, total_tokens: 7 })
  const child = Bun.spawnSync(['bun', '-e', CHILD], {
    env: { ...process.env, THREAD_WRITES: join(import.meta.dir, 'thread-writes.ts'), DB_PATH: path, RECORD: JSON.stringify(record) },
    stderr: 'pipe',
  })
  expect(child.stderr.toString()).toBe('')
  const modules = JSON.parse(child.stdout.toString()) as string[]
  // The listing works: the thread's own modules are in it.
  expect(modules.some((m) => m.endsWith('src/stores/sqlite/usage-writes.ts'))).toBe(true)
  expect(modules.filter((m) => m.includes('node_modules'))).toEqual([])
  const stored = await sqliteUsageStore(new Database(path, { strict: true })).totals({ fromMs: record.ts - 1, toMs: record.ts + 1 })
  expect(stored).toMatchObject({ requests: 1, input_tokens: 7 })
})

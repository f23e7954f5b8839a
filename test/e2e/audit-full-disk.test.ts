/**
 * The full-disk case of issue #17 (defect 4), on a real small file system: a tmpfs of a few MB the test mounts,
 * holding the database and, beside it, the spill folder (the default layout). The disk is filled, the real
 * gateway (`bun src/main.ts`) answers a bounded load, then the disk gets space back: every answered request's
 * audit entry and usage record are in the database afterwards (usage records past their queue of 50 spill and
 * replay like audit entries), nothing is dead-lettered, and `/ready` said `degraded` meanwhile.
 * Mounting needs root (CI runs as root); elsewhere the test is skipped and says why.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { existsSync, mkdtempSync, readFileSync, rmSync, statfsSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { auditAdmin } from '../helpers/audit-admin.ts'
import { spawnGateway } from '../helpers/gateway-process.ts'
import { startMockOpenAI, type MockUpstream } from '../helpers/mock-openai-upstream.ts'

const MASTER = 'master-key-for-full-disk-0123456789abcd'
const SIZE_MB = 64
const REQUESTS = 1200
const CONCURRENCY = 12

function mountTmpfs(): string | undefined {
  if (process.getuid?.() !== 0) return undefined
  const dir = mkdtempSync(join(tmpdir(), 'gw-full-disk-'))
  const mounted = Bun.spawnSync(['mount', '-t', 'tmpfs', '-o', `size=${SIZE_MB}m`, 'tmpfs', dir])
  if (mounted.exitCode !== 0) {
    rmSync(dir, { recursive: true, force: true })
    return undefined
  }
  return dir
}

const mountPoint = mountTmpfs()
if (!mountPoint) console.warn(`audit-full-disk: skipped: mounting a ${SIZE_MB} MB tmpfs needs root (CI runs as root)`)
let mock: MockUpstream

beforeAll(() => {
  mock = startMockOpenAI()
})
afterAll(() => {
  mock?.stop()
  if (!mountPoint) return
  Bun.spawnSync(['umount', mountPoint])
  rmSync(mountPoint, { recursive: true, force: true })
})

function count(dbPath: string, sql: string): number {
  const db = new Database(dbPath, { readonly: true })
  try {
    return db.query<{ n: number }, []>(sql).get()!.n
  } finally {
    db.close()
  }
}
const storedEntries = (dbPath: string) => count(dbPath, "SELECT COUNT(*) AS n FROM audit_log WHERE path LIKE '/v1/%'")
const storedUsage = (dbPath: string) => count(dbPath, 'SELECT COUNT(*) AS n FROM usage_records')

/** Fills the file system but `leaveBytes`; the filler file is what "gets space back" deletes. */
function fill(dir: string, leaveBytes: number): string {
  const path = join(dir, 'filler')
  const { bavail, bsize } = statfsSync(dir)
  const bytes = Number(bavail) * Number(bsize) - leaveBytes
  if (bytes > 0) writeFileSync(path, Buffer.alloc(bytes, 1))
  return path
}

const layouts = [
  { name: 'default layout: the spill folder beside the database, on the full disk', spillDir: undefined },
  { name: 'the spill folder on another disk', spillDir: () => mkdtempSync(join(tmpdir(), 'gw-full-disk-spill-')) },
]

describe.skipIf(!mountPoint)('a disk that fills and gets space back (tmpfs)', () => {
  test.each(layouts)(
    '$name: every answered request has its audit entry afterwards; nothing dead-lettered',
    async ({ name, spillDir }) => {
      const dir = mountPoint!
      const dbPath = join(dir, `gateway-${spillDir ? 'spill-elsewhere' : 'default'}.db`)
      const spill = spillDir?.()
      const env: Record<string, string> = {
        ...(spill ? { LOGGING_AUDIT_SPILL_DIR: spill } : {}),
        GATEWAY_MASTER_KEY: MASTER,
        OPENAI_API_KEY: 'sk-up',
        OPENAI_BASE_URL: mock.url,
        LOGGING_LOG_BODIES: 'true',
        // A small queue, so overflow reaches the (full) spill folder and then memory.
        LOGGING_AUDIT_QUEUE_SIZE: '50',
        LOGGING_AUDIT_BATCH_SIZE: '50',
        LOGGING_AUDIT_FLUSH_INTERVAL_MS: '20',
        // Usage records too: past a queue of 50 they spill (or are held) and are replayed like audit entries.
        LOGGING_USAGE_QUEUE_SIZE: '50',
      }
      const gw = await spawnGateway(env, dbPath)
      const filler = fill(dir, 64 * 1024)
      const padding = 'x'.repeat(4000)
      let answered = 0
      let next = 0
      const readyStates = new Set<string>()
      const worker = async () => {
        while (next < REQUESTS) {
          const i = next++
          try {
            const res = await fetch(`${gw.url}/v1/chat/completions`, {
              method: 'POST',
              headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json' },
              body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: `${i} ${padding}` }] }),
            })
            await res.text()
            answered++
          } catch {
            // not answered: no entry owed
          }
          if (i % 200 === 0) {
            const ready = (await (await fetch(`${gw.url}/ready`, { headers: { authorization: `Bearer ${MASTER}` } })).json()) as { status: string; audit?: { state: string } }
            readyStates.add(`${ready.status}/${ready.audit?.state ?? '-'}`)
          }
        }
      }
      await Promise.all(Array.from({ length: CONCURRENCY }, worker))
      const ready = (await (await fetch(`${gw.url}/ready`, { headers: { authorization: `Bearer ${MASTER}` } })).json()) as {
        status: string
        audit?: { state: string; held: number; lost: number }
      }
      readyStates.add(`${ready.status}/${ready.audit?.state ?? '-'}`)
      const storedWhileFull = storedEntries(dbPath)

      unlinkSync(filler) // space comes back
      const deadline = Date.now() + 20_000
      while (storedEntries(dbPath) < answered && Date.now() < deadline) await Bun.sleep(250)
      const stats = await auditAdmin(gw.url, MASTER).writerStats()
      if (storedEntries(dbPath) < answered)
        console.log(
          'audit-full-disk: writer',
          JSON.stringify(stats),
          gw
            .output()
            .split('\n')
            .filter((l) => /lost|dead|error/i.test(l))
            .slice(-5)
            .join('\n')
            .slice(0, 3000),
        )
      expect(await gw.stop()).toBe(0)
      // A restart replays whatever spill files are left.
      const again = await spawnGateway(env, dbPath)
      const restartDeadline = Date.now() + 15_000
      while (storedEntries(dbPath) < answered && Date.now() < restartDeadline) await Bun.sleep(250)
      expect(await again.stop()).toBe(0)

      const stored = storedEntries(dbPath)
      const usage = storedUsage(dbPath)
      const deadLetterPath = `${spill ?? `${dbPath}.audit-spill`}/audit-dead-letter.jsonl`
      const deadLettered = existsSync(deadLetterPath) ? readFileSync(deadLetterPath, 'utf8').split('\n').filter(Boolean).length : 0
      console.log(
        `audit-full-disk (${name}): ${answered} answered; stored while full ${storedWhileFull}; stored after space returned and a restart ${stored}; usage records ${usage}; dead-lettered ${deadLettered}; /ready seen ${[...readyStates].join(', ')}`,
      )
      expect(storedWhileFull).toBeLessThan(answered) // the disk really was full
      expect(deadLettered).toBe(0)
      expect(stored).toBe(answered)
      expect(usage).toBe(answered)
      // With the spill folder elsewhere nothing needs holding in memory; on the full disk /ready must say degraded.
      if (!spill) expect([...readyStates].some((s) => s.startsWith('degraded/'))).toBe(true)
      unlinkSync(dbPath)
      if (spill) rmSync(spill, { recursive: true, force: true })
    },
    120_000,
  )
})

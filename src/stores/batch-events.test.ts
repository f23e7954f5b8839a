import { expect, test } from 'bun:test'
import { type ObservedStore, StoreEvents, type StoreErrorKind } from './batch-events.ts'

function recorder() {
  const written: { store: ObservedStore; seconds: number }[] = []
  const failed: { store: ObservedStore; kind: StoreErrorKind }[] = []
  return {
    written,
    failed,
    observer: {
      batchWritten: (store: ObservedStore, _backend: string, seconds: number) => written.push({ store, seconds }),
      batchFailed: (store: ObservedStore, _backend: string, kind: StoreErrorKind) => failed.push({ store, kind }),
    },
  }
}

test('a batch write reports its duration and passes its result through', async () => {
  const events = new StoreEvents()
  const r = recorder()
  events.attach(r.observer)
  expect(await events.time('audit', 'sqlite', async () => (await Bun.sleep(20), 7))).toBe(7)
  expect(r.written).toHaveLength(1)
  expect(r.written[0]!.store).toBe('audit')
  expect(r.written[0]!.seconds).toBeGreaterThanOrEqual(0.015)
  expect(r.failed).toHaveLength(0)
})

test('a failed write is reported transient or permanent and the error still reaches the writer', async () => {
  const events = new StoreEvents()
  const r = recorder()
  events.attach(r.observer)
  const full = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' })
  const constraint = Object.assign(new Error('NOT NULL constraint failed: usage.model'), { code: 'SQLITE_CONSTRAINT_NOTNULL' })
  await expect(events.time('usage', 'sqlite', () => Promise.reject(full))).rejects.toBe(full)
  await expect(events.time('usage', 'postgres', () => Promise.reject(constraint))).rejects.toBe(constraint)
  expect(r.failed).toEqual([
    { store: 'usage', kind: 'transient' },
    { store: 'usage', kind: 'permanent' },
  ])
  expect(r.written).toHaveLength(0)
})

test('a detached observer hears nothing more', async () => {
  const events = new StoreEvents()
  const r = recorder()
  const detach = events.attach(r.observer)
  await events.time('audit', 'sqlite', async () => 1)
  detach()
  await events.time('audit', 'sqlite', async () => 1)
  expect(r.written).toHaveLength(1)
})

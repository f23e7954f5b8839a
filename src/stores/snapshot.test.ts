import { describe, expect, test } from 'bun:test'
import { silentLogger } from '../log/logger.ts'
import { MemoryChanges } from './memory/changes.ts'
import { Snapshot, type SnapshotOptions } from './snapshot.ts'

function source() {
  const state = { value: 1, fail: false, loads: 0, gate: undefined as Promise<void> | undefined }
  return {
    state,
    load: async () => {
      state.loads++
      const seen = state.value
      if (state.gate) await state.gate
      if (state.fail) throw new Error('database down')
      return seen
    },
  }
}

/** A snapshot of `source()` whose applied copy `copy()` reads; `options` adds topics, timers and so on. */
function watched(options: Partial<SnapshotOptions<number>> = {}) {
  const src = source()
  let applied = 0
  const snap = new Snapshot({ name: 't', load: src.load, apply: (v) => (applied = v), log: silentLogger, ...options })
  return { src, snap, copy: () => applied }
}

describe('Snapshot', () => {
  test('loads, reloads when the topic changes, ignores other topics', async () => {
    const changes = new MemoryChanges()
    const { src, snap, copy } = watched({ changes, topic: 'keys' })
    expect(await snap.start()).toBe(true)
    expect(copy()).toBe(1)
    src.state.value = 2
    await changes.publish('limits')
    await Bun.sleep(5)
    expect(copy()).toBe(1)
    await changes.publish('keys')
    await Bun.sleep(5)
    expect(copy()).toBe(2)
    snap.stop()
  })

  test('keeps the last good copy while loads fail, and reports it', async () => {
    const { src, snap, copy } = watched({ retryMs: 10 })
    await snap.start()
    src.state.fail = true
    src.state.value = 5
    expect(await snap.refresh()).toBe(false)
    expect(copy()).toBe(1)
    expect(snap.status()).toMatchObject({ loaded: true, fresh: false, lastError: 'database down' })
    src.state.fail = false
    // the retry timer (10 ms) reloads without anyone asking
    await Bun.sleep(60)
    expect(copy()).toBe(5)
    expect(snap.status().fresh).toBe(true)
    snap.stop()
  })

  test('a change announced during a load causes exactly one more load after it', async () => {
    const { src, snap, copy } = watched()
    let open!: () => void
    src.state.gate = new Promise((r) => (open = r))
    const first = snap.start()
    src.state.value = 2 // changed after the running load read its data
    const second = snap.refresh()
    const third = snap.refresh()
    src.state.gate = undefined
    open()
    await Promise.all([first, second, third])
    expect(copy()).toBe(2)
    expect(src.state.loads).toBe(2)
    snap.stop()
  })

  test('the periodic reconcile picks up a change nobody announced', async () => {
    const { src, snap, copy } = watched({ reconcileMs: 20 })
    await snap.start()
    src.state.value = 9
    await Bun.sleep(80)
    expect(copy()).toBe(9)
    snap.stop()
  })

  test('startOrThrow and reload throw when the load fails; reload tells the other replicas only when something changed', async () => {
    const changes = new MemoryChanges()
    const published: string[] = []
    changes.subscribe('limits', { changed: () => void published.push('limits'), resync: () => {} })
    const { src, snap, copy } = watched({ changes, topic: 'limits' })
    src.state.fail = true
    await expect(snap.startOrThrow()).rejects.toThrow('could not load the t: database down')
    src.state.fail = false
    src.state.value = 3
    await snap.reload()
    expect(copy()).toBe(3)
    await snap.reload(true)
    await Bun.sleep(5)
    expect(published).toEqual(['limits'])
    src.state.fail = true
    await expect(snap.reload(true)).rejects.toThrow('could not reload the t: database down')
    await Bun.sleep(5)
    expect(published).toEqual(['limits'])
    snap.stop()
  })
})

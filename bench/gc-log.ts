/**
 * @module Reads the JSC collection log (`BUN_JSC_logGC=1`) of a process that has bench/gc-probe.ts preloaded:
 * for each window between two probe marks, the bytes the main thread's heap allocated, its collections and their
 * pauses, and the collections of the process's other heaps (the write thread's). Requires the collection timers off
 * (GC_LOG_ENV), so that every collection is one the allocation budget triggered and logs its byte count.
 */

/** The environment that makes the log complete: every collection logged, none started by a timer. */
export const GC_LOG_ENV = {
  BUN_JSC_logGC: '1',
  BUN_GC_TIMER_DISABLE: '1',
  BUN_JSC_percentCPUPerMBForEdenTimer: '0.0000001',
  BUN_JSC_percentCPUPerMBForFullTimer: '0.0000001',
}

export const PROBE_MARK = 'gc-probe units='

export interface GcWindow {
  /** Bytes the main thread allocated in the window (the filler that closed it taken off). */
  bytes: number
  /** Collections of the main heap in the window, the one the probe caused not counted. */
  collections: number
  /** Their pauses, ms. */
  pausesMs: number[]
  /** Collections not triggered by allocation (their bytes are missing from `bytes`): should be 0. */
  unaccounted: number
  /** Collections of the other heaps (worker threads). */
  otherCollections: number
  otherPausesMs: number[]
}

const START = /^\[GC<(0x[0-9a-f]+)>: START .*?=> (Eden|Full)Collection.*\bp=([0-9.]+)ms/
const REQUESTED = /^Requesting GC because bytes allocated this cycle: (\d+)/

/** The windows between consecutive marks of `log` (the first mark opens the first window); `unitBytes` per filler unit. */
export function gcWindows(log: string, unitBytes: number): GcWindow[] {
  const windows: GcWindow[] = []
  type Collection = { heap: string; requested: number | undefined; pauseMs: number }
  let collections: Collection[] = []
  let requested: number | undefined
  let opened = false
  for (const line of log.split('\n')) {
    const r = REQUESTED.exec(line)
    if (r) {
      requested = Number(r[1])
      continue
    }
    const s = START.exec(line)
    if (s) {
      collections.push({ heap: s[1]!, requested, pauseMs: Number(s[3]) })
      requested = undefined
      continue
    }
    if (!line.startsWith(PROBE_MARK)) continue
    const units = Number(line.slice(PROBE_MARK.length).split(' ')[0])
    if (opened) {
      // The probe's own collection is the last one before its mark: that is the main thread's heap.
      const closing = collections.at(-1)
      const main = collections.filter((c) => c.heap === closing?.heap)
      const others = collections.filter((c) => c.heap !== closing?.heap)
      const inside = main.slice(0, -1)
      windows.push({
        bytes: main.reduce((sum, c) => sum + (c.requested ?? 0), 0) - units * unitBytes,
        collections: inside.length,
        pausesMs: inside.map((c) => c.pauseMs),
        unaccounted: main.filter((c) => c.requested === undefined).length,
        otherCollections: others.length,
        otherPausesMs: others.map((c) => c.pauseMs),
      })
    }
    opened = true
    collections = []
  }
  return windows
}

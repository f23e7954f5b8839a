/**
 * @module Preloaded into a gateway under measurement (`bun --preload bench/gc-probe.ts src/main.ts`, with
 * `BUN_JSC_logGC=1`): on SIGUSR2 the main thread allocates filler (48-byte arrays, 64 at a time) until its heap
 * collects, then prints `gc-probe units=<n>`. The collection ends a window of the JSC log exactly: the bytes the
 * process allocated since the previous mark are the log's "bytes allocated this cycle" of the collections in
 * between, minus the filler (bench/gc-log.ts reads them). Used by `bun bench/mcp.ts --gc`.
 */
import { heapSize } from 'bun:jsc'

let sink: unknown
function fillUntilCollected(): number {
  const before = heapSize()
  let units = 0
  for (;;) {
    for (let i = 0; i < 64; i++) sink = [units, i, units]
    units += 64
    if (heapSize() !== before) return units
  }
}

if (Bun.isMainThread) {
  process.on('SIGUSR2', () => {
    const units = fillUntilCollected()
    process.stderr.write(`gc-probe units=${units} sink=${typeof sink}\n`)
  })
}

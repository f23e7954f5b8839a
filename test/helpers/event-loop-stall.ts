/**
 * @module How long work blocks this thread: a 1 ms timer ticks while the work runs, and the longest gap between
 * two ticks is the stall (used by src/tokens/count.test.ts and bench/tokenizer-load.ts).
 */

/** Runs `work` while a 1 ms timer ticks on this thread; resolves with the longest gap between two ticks (ms). */
export async function longestStall(work: () => Promise<unknown>): Promise<number> {
  let last = performance.now()
  let longest = 0
  const ticker = setInterval(() => {
    const now = performance.now()
    longest = Math.max(longest, now - last)
    last = now
  }, 1)
  try {
    await work()
    await Bun.sleep(5)
  } finally {
    clearInterval(ticker)
  }
  return Math.max(longest, performance.now() - last)
}

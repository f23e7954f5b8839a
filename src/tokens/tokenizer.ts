/**
 * @module The o200k_base tokenizer. Its tables take about 40 MB of resident memory and 0.3–1.5 s of one core to
 * load, synchronously, so only the tokenizer thread (count-thread-worker.ts) loads them, on the first count: an
 * idle gateway never holds them, and loading never blocks the thread that serves requests.
 */
type O200k = typeof import('gpt-tokenizer/encoding/o200k_base')

let o200k: O200k | undefined

/** Loads the tables now (idempotent). */
export function loadTokenizer(): void {
  // A synchronous require: `bun build --compile` bundles it like an import, and the thread loads it when asked.
  o200k ??= require('gpt-tokenizer/encoding/o200k_base') as O200k
}

/** Tokens of `text` in o200k_base. */
export function countO200kTokens(text: string): number {
  loadTokenizer()
  return o200k!.countTokens(text)
}

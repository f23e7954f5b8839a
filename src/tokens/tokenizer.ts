/**
 * @module The o200k_base tokenizer. Its tables take about 40 MB of resident memory and 0.3–1.5 s of one core to
 * load, synchronously. A gateway loads them while it starts (before `/ready` reports ready, see Gateway.start), so
 * that no request ever waits for them and no other request stalls meanwhile (issue #17: no estimate may block the
 * event loop for more than a few milliseconds). Tools and tests that never start a gateway load them on first use.
 */
type O200k = typeof import('gpt-tokenizer/encoding/o200k_base')

let o200k: O200k | undefined

/** Loads the tables now (idempotent). */
export function loadTokenizer(): void {
  // A synchronous require keeps every caller synchronous; `bun build --compile` bundles it like an import.
  o200k ??= require('gpt-tokenizer/encoding/o200k_base') as O200k
}

/** Tokens of `text` in o200k_base. */
export function countO200kTokens(text: string): number {
  loadTokenizer()
  return o200k!.countTokens(text)
}

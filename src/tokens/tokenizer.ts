/**
 * @module The o200k_base tokenizer, loaded on first use: its tables take about 40 MB of resident memory, and
 * most gateways never need an estimate (upstreams report usage), so an idle process does not pay for them.
 */
type O200k = typeof import('gpt-tokenizer/encoding/o200k_base')

let o200k: O200k | undefined

/** Tokens of `text` in o200k_base; the first call loads the tables (tens of milliseconds). */
export function countO200kTokens(text: string): number {
  // A synchronous require keeps every caller synchronous; `bun build --compile` bundles it like an import.
  o200k ??= require('gpt-tokenizer/encoding/o200k_base') as O200k
  return o200k.countTokens(text)
}

/**
 * @module The o200k_base token count: the text split into pieces with o200k's pattern, each piece's UTF-8 bytes
 * merged pair by pair, lowest rank first (byte-pair encoding, as tiktoken does), and the parts counted. The ranks
 * come from the `.tiktoken` file gpt-tokenizer ships, held in typed arrays (rank-table.ts): about 5 MiB, loaded
 * in a few tens of milliseconds on the tokenizer thread (count-thread-worker.ts) on the first count, so an idle
 * gateway never holds them. Text that spells a special token (`<|endoftext|>`) is counted as the text it is.
 */
import { readFileSync } from 'node:fs'
import { O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/esm/encodingParams/constants'
// Embedded by `bun build --compile`; a path into the package otherwise.
import o200kFile from 'gpt-tokenizer/data/o200k_base.tiktoken' with { type: 'file' }
import { parseTiktoken, type RankTable, rankOf } from './rank-table.ts'

let table: RankTable | undefined

/** Loads the ranks now (idempotent). */
export function loadTokenizer(): void {
  table ??= parseTiktoken(readFileSync(o200kFile))
}

const encoder = new TextEncoder()
/** The current piece's UTF-8 bytes, and the merge state over them (grown as longer pieces come). */
let piece = new Uint8Array(1024)
let starts = new Int32Array(1025)
let ranks = new Float64Array(1025)

/** Tokens of `text` in o200k_base. */
export function countO200kTokens(text: string): number {
  loadTokenizer()
  let tokens = 0
  for (const [match] of text.matchAll(O200K_TOKEN_SPLIT_REGEX)) tokens += pieceTokens(table!, match)
  return tokens
}

function pieceTokens(t: RankTable, text: string): number {
  if (text.length * 3 > piece.length) {
    piece = new Uint8Array(text.length * 3)
    starts = new Int32Array(piece.length + 1)
    ranks = new Float64Array(piece.length + 1)
  }
  const n = encoder.encodeInto(text, piece).written
  if (n === 1 || rankOf(t, piece, 0, n) >= 0) return 1
  // Parts [starts[i], starts[i + 1]); ranks[i] is the rank of parts i and i + 1 joined (Infinity: no such token).
  let count = n + 1
  const pairRank = (i: number) => (i + 2 < count ? rankOrInfinity(t, starts[i]!, starts[i + 2]!) : Number.POSITIVE_INFINITY)
  for (let i = 0; i < count; i++) starts[i] = i
  for (let i = 0; i < count; i++) ranks[i] = pairRank(i)
  while (count > 1) {
    let lowest = Number.POSITIVE_INFINITY
    let at = -1
    for (let i = 0; i < count - 1; i++) {
      if (ranks[i]! < lowest) {
        lowest = ranks[i]!
        at = i
      }
    }
    if (at < 0) break
    // Join parts `at` and `at + 1`: drop the boundary between them, then re-rank the pairs around the new part.
    starts.copyWithin(at + 1, at + 2, count)
    ranks.copyWithin(at, at + 1, count)
    count--
    ranks[at] = pairRank(at)
    if (at > 0) ranks[at - 1] = pairRank(at - 1)
  }
  return count - 1
}

function rankOrInfinity(t: RankTable, from: number, to: number): number {
  const rank = rankOf(t, piece, from, to)
  return rank < 0 ? Number.POSITIVE_INFINITY : rank
}

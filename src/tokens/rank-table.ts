/**
 * @module A BPE vocabulary (token bytes → merge rank) in three typed arrays: every token's bytes one after the
 * other, where each token starts, and an open-addressing hash table of token numbers. o200k_base (199,998 tokens)
 * takes about 5 MiB this way; as JavaScript strings in a Map (gpt-tokenizer's tables, with the source text of the
 * module that lists them) it took about 40 MiB of the tokenizer thread's memory.
 *
 * Read from a `.tiktoken` file (one line per token: the base64 of its bytes, a space, its rank; ranks 0, 1, 2, …
 * in order), the format OpenAI publishes its encodings in.
 */

export interface RankTable {
  /** Every token's bytes, in rank order. */
  readonly bytes: Uint8Array
  /** Token `r` is `bytes[start[r], start[r + 1])`. */
  readonly start: Uint32Array
  /** Rank + 1 of the token hashed to each slot (linear probing); 0: empty. */
  readonly slots: Int32Array
  /** Number of tokens. */
  readonly size: number
}

const BASE64 = new Int8Array(256).fill(-1)
for (const [i, c] of [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'].entries()) BASE64[c.charCodeAt(0)] = i

const NEWLINE = 10
const SPACE = 32
const PADDING = 61 // '='

/** Parses a `.tiktoken` file; throws on a malformed one (the file ships with the gateway: a bug, not an input). */
export function parseTiktoken(file: Uint8Array): RankTable {
  let lines = 0
  for (let at = file.indexOf(NEWLINE); at >= 0; at = file.indexOf(NEWLINE, at + 1)) lines++
  // Base64 carries 3 bytes in 4 characters; the ranks and separators make this an overestimate.
  const bytes = new Uint8Array(Math.ceil((file.length * 3) / 4))
  const start = new Uint32Array(lines + 2)
  let size = 0
  let out = 0
  let i = 0
  while (i < file.length) {
    if (file[i] === NEWLINE) {
      i++
      continue
    }
    start[size] = out
    let bits = 0
    let acc = 0
    for (; i < file.length && file[i] !== SPACE; i++) {
      const c = file[i]!
      if (c === PADDING) continue
      const value = BASE64[c]!
      if (value < 0) throw new Error(`tiktoken file, line ${size + 1}: '${String.fromCharCode(c)}' is not base64`)
      acc = ((acc << 6) | value) & 0xffffff
      bits += 6
      if (bits >= 8) {
        bits -= 8
        bytes[out++] = (acc >> bits) & 0xff
      }
    }
    i++ // the space
    let rank = 0
    for (; i < file.length && file[i] !== NEWLINE; i++) rank = rank * 10 + (file[i]! - 48)
    if (rank !== size) throw new Error(`tiktoken file, line ${size + 1}: rank ${rank}, expected ${size}`)
    size++
  }
  start[size] = out
  let capacity = 1
  while (capacity < size * 2) capacity *= 2
  const table: RankTable = { bytes: bytes.slice(0, out), start: start.slice(0, size + 1), slots: new Int32Array(capacity), size }
  const mask = capacity - 1
  for (let rank = 0; rank < size; rank++) {
    let slot = hash(table.bytes, table.start[rank]!, table.start[rank + 1]!) & mask
    while (table.slots[slot] !== 0) slot = (slot + 1) & mask
    table.slots[slot] = rank + 1
  }
  return table
}

/** FNV-1a over `b[from, to)`. */
function hash(b: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5
  for (let i = from; i < to; i++) h = Math.imul(h ^ b[i]!, 0x01000193)
  return h >>> 0
}

/** The rank of the token whose bytes are `b[from, to)`; -1 when no token has them. */
export function rankOf(table: RankTable, b: Uint8Array, from: number, to: number): number {
  const { bytes, start, slots } = table
  const mask = slots.length - 1
  const length = to - from
  for (let slot = hash(b, from, to) & mask; ; slot = (slot + 1) & mask) {
    const entry = slots[slot]!
    if (entry === 0) return -1
    const rank = entry - 1
    const at = start[rank]!
    if (start[rank + 1]! - at !== length) continue
    let same = true
    for (let k = 0; k < length; k++) {
      if (bytes[at + k] !== b[from + k]) {
        same = false
        break
      }
    }
    if (same) return rank
  }
}

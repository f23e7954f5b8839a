/**
 * @module How many values a JSON body holds, counted on its bytes as they arrive, before it is decoded or parsed:
 * JSON.parse of 32 MiB of `{},{},…` builds eleven million objects (about 1 s and 1 GiB on one core), and everything
 * after it (the depth walk, the schema check, the upstream body) costs per value too. The body reader
 * (body-reader.ts) stops reading as soon as the limit is passed, so such a body costs its first few megabytes; strings
 * (base64 images, long prompts) are skipped with `indexOf`, not byte by byte.
 */

/**
 * Most values accepted in one request body. A conversation at Anthropic's own limit of 100,000 messages, each an
 * object with a role and a content block, holds about 600,000; real agent histories hold tens of thousands.
 */
export const MAX_JSON_VALUES = 1_000_000

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_OBJECT = 0x7b
const OPEN_ARRAY = 0x5b
const COMMA = 0x2c

/**
 * Whether a body of `bytes` could hold more than `limit` values: each counted value is one byte of structure and
 * the densest JSON (`[],[],…`) has two in three bytes, so a shorter body needs no counting.
 */
export function couldHoldMoreValues(bytes: number, limit: number): boolean {
  return bytes * 2 > limit * 3
}

/**
 * Counts each object, each array and each separator between elements or members, outside strings: within one per
 * container of the number of objects, arrays and their elements. UTF-8 is read as bytes (a multi-byte character
 * never contains a byte below 0x80), so the text need not be decoded to be counted.
 */
export class JsonValueCounter {
  private count = 0
  private inString = false
  /** The piece before ended in a string on a backslash: the next byte is escaped. */
  private escapePending = false

  constructor(private readonly limit: number) {}

  /** Values counted so far. */
  get values(): number {
    return this.count
  }

  /** Counts the next piece of the body; true once it holds more than the limit. */
  push(bytes: Uint8Array): boolean {
    const end = bytes.length
    let i = 0
    // Where the next quote and the next backslash are, each searched for again only once passed: a piece is read
    // once however many strings it holds (searching again from every string would read it once per string).
    let quote = -1
    let backslash = -1
    if (this.escapePending && end > 0) {
      this.escapePending = false
      i = 1
    }
    while (i < end) {
      if (this.inString) {
        if (quote < i) quote = indexOrEnd(bytes, QUOTE, i)
        if (backslash < i) backslash = indexOrEnd(bytes, BACKSLASH, i)
        if (backslash < quote) {
          i = backslash + 2
          if (i > end) this.escapePending = true
        } else {
          if (quote === end) return false
          this.inString = false
          i = quote + 1
        }
        continue
      }
      const c = bytes[i]!
      if (c === QUOTE) this.inString = true
      else if ((c === OPEN_OBJECT || c === OPEN_ARRAY || c === COMMA) && ++this.count > this.limit) return true
      i++
    }
    return false
  }
}

function indexOrEnd(bytes: Uint8Array, byte: number, from: number): number {
  const at = bytes.indexOf(byte, from)
  return at < 0 ? bytes.length : at
}

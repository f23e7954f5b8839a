/**
 * @module How deeply a JSON text nests, measured on the text before parsing, so a hostile body (100,000 levels in
 * 200 KB) is refused before JSON.parse, JSON.stringify or a recursive walk overflows the stack on it.
 */

/** Deepest nesting accepted in a request body; real requests (tool schemas included) stay far below it. */
export const MAX_JSON_DEPTH = 128

/** True when `text` nests objects/arrays deeper than `limit` (brackets inside strings do not count). */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92)
        i++ // backslash: skip the escaped character
      else if (c === 34) inString = false
      continue
    }
    if (c === 34) inString = true
    else if (c === 123 || c === 91) {
      if (++depth > limit) return true
    } else if (c === 125 || c === 93) depth--
  }
  return false
}

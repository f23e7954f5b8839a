/**
 * @module How deeply a parsed JSON value nests, so a hostile body (100,000 levels in 200 KB) is refused before
 * anything recursive (JSON.stringify, a schema check, a body walk) overflows the stack on it. Measured on the parsed
 * value: JavaScriptCore's JSON.parse is not recursive, and walking the containers (stopping one level past the limit)
 * costs a few hundred nanoseconds where scanning the text cost about 1.5 ns per character (0.17 ms for a 100 KB body).
 */

/** Deepest nesting accepted in a request body; real requests (tool schemas included) stay far below it. */
export const MAX_JSON_DEPTH = 128

/** True when `value` nests objects/arrays deeper than `limit` (a scalar has depth 0, `{}` and `[]` depth 1). */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  if (typeof value !== 'object' || value === null) return false
  if (limit === 0) return true
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (nestsDeeperThan(value[i], limit - 1)) return true
    return false
  }
  for (const key in value) if (nestsDeeperThan((value as Record<string, unknown>)[key], limit - 1)) return true
  return false
}

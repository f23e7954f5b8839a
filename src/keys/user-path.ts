/**
 * @module User paths: a slash-separated tree (`/acme/team-a/alice`) that attributes requests to people and
 * teams. A key bound to a path attributes every request to it; a client may narrow it with the
 * `X-Gateway-User-Path` header but never leave the subtree.
 *
 * Normalising adds the leading `/`, drops a trailing one and collapses `//`; case is kept. Everything that could
 * make two spellings of one path differ, or climb out of a subtree, is rejected rather than repaired: `.` and
 * `..` segments, `%` (percent-encoding), backslashes, control characters and anything outside [A-Za-z0-9._-].
 */

export const USER_PATH_HEADER = 'x-gateway-user-path'
export const MAX_USER_PATH_LENGTH = 512
export const MAX_USER_PATH_DEPTH = 32

const SEGMENT = /^[A-Za-z0-9._-]+$/
const ONLY_DOTS = /^\.+$/

export type UserPathResult = { ok: true; path: string } | { ok: false; reason: string }

/**
 * @example normalizeUserPath('acme//team-a/') // { ok: true, path: '/acme/team-a' }
 * @example normalizeUserPath('/acme/../root') // { ok: false, reason: ... }
 */
export function normalizeUserPath(input: string): UserPathResult {
  if (input.length === 0) return { ok: false, reason: 'the user path is empty' }
  if (input.length > MAX_USER_PATH_LENGTH) return { ok: false, reason: `the user path is longer than ${MAX_USER_PATH_LENGTH} characters` }
  const segments = input.split('/').filter((s) => s !== '')
  if (segments.length > MAX_USER_PATH_DEPTH) return { ok: false, reason: `the user path is deeper than ${MAX_USER_PATH_DEPTH} segments` }
  for (const segment of segments) {
    if (ONLY_DOTS.test(segment)) return { ok: false, reason: 'the user path must not contain "." or ".." segments' }
    if (!SEGMENT.test(segment)) return { ok: false, reason: 'each user path segment may contain only letters, digits, ".", "_" and "-"' }
  }
  return { ok: true, path: `/${segments.join('/')}` }
}

/** True when `path` is `ancestor` or lies below it. Both must be normalised. */
export function isWithinUserPath(path: string, ancestor: string): boolean {
  return ancestor === '/' || path === ancestor || path.startsWith(`${ancestor}/`)
}

export type RequestUserPath = { ok: true; path: string | undefined } | { ok: false; problem: 'invalid'; reason: string } | { ok: false; problem: 'outside'; reason: string }

/**
 * The path a request is attributed to: the key's bound path, narrowed by the client's header when it sent one.
 * Without a bound path the header alone decides.
 */
export function requestUserPath(bound: string | undefined, header: string | null): RequestUserPath {
  if (header === null) return { ok: true, path: bound }
  const normalized = normalizeUserPath(header)
  if (!normalized.ok) return { ok: false, problem: 'invalid', reason: normalized.reason }
  if (bound !== undefined && !isWithinUserPath(normalized.path, bound)) {
    return { ok: false, problem: 'outside', reason: `user path '${normalized.path}' is outside the key's path '${bound}'` }
  }
  return { ok: true, path: normalized.path }
}

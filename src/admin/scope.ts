/**
 * @module What lies inside a principal's admin scope, a user-path subtree. A key bound to `/acme/team-a`
 * administers `/acme/team-a` and below; what has no user path (an unbound key, an entry without one, stored as
 * `/`) is outside every scoped subtree. An unscoped principal (scope null) sees everything.
 */
import { GatewayError } from '../errors/gateway-error.ts'
import { isWithinUserPath } from '../keys/user-path.ts'

/** The admin scope a user path gives a principal: a path bound to `/` covers the whole tree, like no path at all. */
export function scopeOfUserPath(userPath: string | null | undefined): string | null {
  return userPath === null || userPath === undefined || userPath === '/' ? null : userPath
}

/** True when `path` (a key's bound path, an entry's or a limit's path) lies inside the scope. */
export function inAdminScope(scope: string | null, path: string | null | undefined): boolean {
  if (scope === null) return true
  if (path === null || path === undefined || path === '' || path === '/') return false
  return isWithinUserPath(path, scope)
}

export const outsideScope = (scope: string, what: string, param: string | null = 'user_path') =>
  new GatewayError({
    status: 403,
    type: 'authentication_error',
    code: 'outside_admin_scope',
    param,
    message: `${what} is outside your admin scope ${scope}.`,
  })

/**
 * The user-path filter a scoped principal's read runs with: the asked subtree when it lies inside the scope, the
 * scope when the asked subtree contains it, and a 403 when the two do not meet. Unscoped: what was asked.
 *
 * @example confinedPath('/acme', '/acme/a') // '/acme/a'
 * @example confinedPath('/acme/a', '/acme') // '/acme/a'
 * @example confinedPath('/acme', undefined) // '/acme'
 */
export function confinedPath(scope: string | null, asked: string | undefined): string | undefined {
  if (scope === null) return asked
  if (asked === undefined || asked === '/' || isWithinUserPath(scope, asked)) return scope
  if (isWithinUserPath(asked, scope)) return asked
  throw outsideScope(scope, `The user path ${asked}`)
}

/**
 * The deepest path both lie in (`/` when none): a security event about a key moved from `/acme/a` to `/acme/b`
 * is filed under `/acme`, so it shows to whoever administers both sides and to no one who administers only one.
 */
export function commonUserPath(a: string | null | undefined, b: string | null | undefined): string {
  if (!a || !b) return '/'
  const left = a.split('/').filter(Boolean)
  const right = b.split('/').filter(Boolean)
  const shared: string[] = []
  for (let i = 0; i < Math.min(left.length, right.length) && left[i] === right[i]; i++) shared.push(left[i]!)
  return `/${shared.join('/')}`
}

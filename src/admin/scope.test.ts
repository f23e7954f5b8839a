import { expect, test } from 'bun:test'
import { commonUserPath, confinedPath, inAdminScope, scopeOfUserPath } from './scope.ts'

test('a key bound to / or to nothing is unscoped; any other path is its scope', () => {
  expect(scopeOfUserPath(null)).toBeNull()
  expect(scopeOfUserPath('/')).toBeNull()
  expect(scopeOfUserPath('/acme')).toBe('/acme')
})

test('inside a scope: the path and below, never a sibling with the same prefix, never what has no path', () => {
  expect(inAdminScope('/acme', '/acme')).toBe(true)
  expect(inAdminScope('/acme', '/acme/a/b')).toBe(true)
  expect(inAdminScope('/acme', '/acme-corp')).toBe(false)
  expect(inAdminScope('/acme', '/')).toBe(false)
  expect(inAdminScope('/acme', null)).toBe(false)
  expect(inAdminScope('/acme', '')).toBe(false)
  expect(inAdminScope(null, null)).toBe(true)
})

test('a read is confined to the scope: narrower asks stay, wider ones shrink, disjoint ones are refused', () => {
  expect(confinedPath(null, undefined)).toBeUndefined()
  expect(confinedPath(null, '/x')).toBe('/x')
  expect(confinedPath('/acme', undefined)).toBe('/acme')
  expect(confinedPath('/acme', '/')).toBe('/acme')
  expect(confinedPath('/acme/a', '/acme')).toBe('/acme/a')
  expect(confinedPath('/acme', '/acme/a')).toBe('/acme/a')
  expect(() => confinedPath('/acme', '/acme-corp')).toThrow(expect.objectContaining({ status: 403, code: 'outside_admin_scope' }))
})

test('an event about two paths is filed under the deepest path both lie in', () => {
  expect(commonUserPath('/acme/a', '/acme/b')).toBe('/acme')
  expect(commonUserPath('/acme/a', '/acme/a/x')).toBe('/acme/a')
  expect(commonUserPath('/acme', '/globex')).toBe('/')
  expect(commonUserPath(null, '/acme')).toBe('/')
})

import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { isWithinUserPath, MAX_USER_PATH_DEPTH, normalizeUserPath, requestUserPath } from './user-path.ts'

const CANONICAL = /^\/$|^(\/[A-Za-z0-9._-]+)+$/

describe('normalizeUserPath', () => {
  test.each([
    ['/acme', '/acme'],
    ['acme/team-a', '/acme/team-a'],
    ['/acme/team-a/', '/acme/team-a'],
    ['//acme///Team_A.v2//', '/acme/Team_A.v2'],
    ['/', '/'],
    ['///', '/'],
  ])('%p → %p', (input, expected) => {
    expect(normalizeUserPath(input)).toEqual({ ok: true, path: expected })
  })

  test.each([
    ['empty', ''],
    ['dot-dot', '/acme/../root'],
    ['leading dot-dot', '../acme'],
    ['dot', '/acme/./team'],
    ['only dots', '/acme/...'],
    ['percent-encoded dot-dot', '/acme/%2e%2e/root'],
    ['percent-encoded slash', '/acme%2Fteam'],
    ['backslash', '/acme\\team'],
    ['backslash traversal', '/acme/..\\..'],
    ['NUL', '/acme\u0000'],
    ['newline', '/acme\n/x'],
    ['DEL', '/acme\u007f'],
    ['space', '/acme team'],
    ['unicode look-alike', '/acme/tеam'],
    ['too deep', '/a'.repeat(MAX_USER_PATH_DEPTH + 1)],
    ['too long', `/${'a'.repeat(600)}`],
  ])('rejects %s', (_name, input) => {
    expect(normalizeUserPath(input).ok).toBe(false)
  })

  test('keeps case', () => {
    expect(normalizeUserPath('/Acme/Team')).toEqual({ ok: true, path: '/Acme/Team' })
  })
})

describe('subtrees', () => {
  test('a path is within itself and its ancestors, not within a sibling sharing a prefix', () => {
    expect(isWithinUserPath('/acme/team', '/acme')).toBe(true)
    expect(isWithinUserPath('/acme', '/acme')).toBe(true)
    expect(isWithinUserPath('/acme', '/')).toBe(true)
    expect(isWithinUserPath('/acme-evil', '/acme')).toBe(false)
    expect(isWithinUserPath('/acme', '/acme/team')).toBe(false)
  })

  test('requestUserPath: narrow ok, widen or leave refused, unbound takes the header', () => {
    expect(requestUserPath('/acme', null)).toEqual({ ok: true, path: '/acme' })
    expect(requestUserPath('/acme', '/acme/team-a/')).toEqual({ ok: true, path: '/acme/team-a' })
    expect(requestUserPath('/acme/team-a', '/acme')).toMatchObject({ ok: false, problem: 'outside' })
    expect(requestUserPath('/acme', '/acme-evil')).toMatchObject({ ok: false, problem: 'outside' })
    expect(requestUserPath('/acme', '/acme/../other')).toMatchObject({ ok: false, problem: 'invalid' })
    expect(requestUserPath(undefined, 'team')).toEqual({ ok: true, path: '/team' })
    expect(requestUserPath(undefined, null)).toEqual({ ok: true, path: undefined })
    expect(requestUserPath(undefined, '')).toMatchObject({ ok: false, problem: 'invalid' })
  })
})

describe('properties', () => {
  const segmentChar = fc.constantFrom(...'abcXYZ019._-/\\%.'.split(''), '\u0000', '\n', ' ', 'é', '..')
  const pathLike = fc.oneof(
    fc.string({ maxLength: 80 }),
    fc.string({ unit: 'binary', maxLength: 80 }),
    fc.array(segmentChar, { maxLength: 40 }).map((a) => a.join('')),
  )

  test('never throws; accepted paths are canonical, free of dot segments, and normalising them again changes nothing', () => {
    fc.assert(
      fc.property(pathLike, (input) => {
        const result = normalizeUserPath(input)
        if (!result.ok) return
        expect(result.path).toMatch(CANONICAL)
        expect(result.path.split('/').some((s) => s === '.' || s === '..')).toBe(false)
        expect(normalizeUserPath(result.path)).toEqual(result)
      }),
      { numRuns: 2000 },
    )
  })

  test('a narrowed path never lies outside the bound path', () => {
    const segment = fc.stringMatching(/^[a-z.]{1,4}$/)
    const path = fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => `/${s.join('/')}`)
    fc.assert(
      fc.property(path, fc.oneof(path, pathLike), (bound, header) => {
        const boundPath = normalizeUserPath(bound)
        fc.pre(boundPath.ok)
        const result = requestUserPath((boundPath as { path: string }).path, header)
        if (result.ok) expect(isWithinUserPath(result.path!, (boundPath as { path: string }).path)).toBe(true)
      }),
      { numRuns: 2000 },
    )
  })
})

import { expect, test } from 'bun:test'
import { nestedQuantifier } from './pattern-safety.ts'

test('repeated groups that hold an unbounded quantifier are found, wherever they are', () => {
  for (const [pattern, at] of [
    ['(a+)+', 1],
    ['x(\\w+\\s?)*$', 2],
    ['(?:ab|c*){2,}', 1],
    ['^(?<word>[a-z]+,)+;', 2],
    ['((a)+b)+', 1],
    ['(?:x(?:y+))*', 1],
    ['(a{1,})+', 1],
    ['(a*){3}', 1],
  ] as const) {
    expect({ pattern, found: nestedQuantifier(pattern) }).toEqual({ pattern, found: `a repeated group that holds its own unbounded quantifier, at character ${at}` })
  }
})

test('ordinary patterns pass: single quantifiers, optional groups, escapes and classes', () => {
  for (const pattern of [
    '\\bACME-\\d+\\b',
    '(?:sk|pk)-[A-Za-z0-9]{20,}',
    '(\\d{3})-(\\d{4})',
    '(a+)?',
    '(a+){1}',
    '(?:ab)+c*',
    '\\(a+\\)+',
    '[(a+)]+',
    '(?<=x+)y',
    '(?<name>a+)b',
    'a{2}b{,3}',
  ]) {
    expect({ pattern, found: nestedQuantifier(pattern) }).toEqual({ pattern, found: undefined })
  }
})

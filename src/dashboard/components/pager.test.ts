import { describe, expect, test } from 'bun:test'
import { pagerState } from './pager.tsx'

describe('pagerState', () => {
  test('an exact total: the range ends at it and Next stops there', () => {
    expect(pagerState({ offset: 0, limit: 25, total: 132 })).toEqual({ first: 1, last: 25, of: '132', hasNext: true })
    expect(pagerState({ offset: 125, limit: 25, total: 132 })).toEqual({ first: 126, last: 132, of: '132', hasNext: false })
    expect(pagerState({ offset: 0, limit: 25, total: 0 })).toEqual({ first: 0, last: 0, of: '0', hasNext: false })
  })

  test('a total where counting stopped (gte): "10,000+", and Next stays enabled past it', () => {
    expect(pagerState({ offset: 0, limit: 25, total: 10_000, atLeast: true })).toEqual({ first: 1, last: 25, of: '10,000+', hasNext: true })
    expect(pagerState({ offset: 9_975, limit: 25, total: 10_000, atLeast: true })).toEqual({ first: 9_976, last: 10_000, of: '10,000+', hasNext: true })
    expect(pagerState({ offset: 10_000, limit: 25, total: 10_000, atLeast: true })).toEqual({ first: 10_001, last: 10_025, of: '10,000+', hasNext: true })
  })
})

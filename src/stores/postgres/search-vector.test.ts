import { expect, test } from 'bun:test'
import { searchQuery, searchVector, searchWords } from './search-vector.ts'

test('words are runs of letters and digits, lowercased, without diacritics', () => {
  expect(searchWords('openai/gpt-4o-mini POST /v1/chat/completions')).toEqual(['openai', 'gpt', '4o', 'mini', 'post', 'v1', 'chat', 'completions'])
  expect(searchWords('Überlastung: café — Ошибка 東京')).toEqual(['uberlastung', 'cafe', 'ошибка', '東京'])
  expect(searchWords(`a ${'x'.repeat(501)} b`)).toEqual(['a', 'b'])
})

test('a vector lists each word once with its positions, as PostgreSQL reads a tsvector literal', () => {
  expect(searchVector('openai/gpt-4o openai')).toBe("'openai':1,4 'gpt':2 '4o':3")
  expect(searchVector('')).toBe('')
  const many = searchVector(Array.from({ length: 300 }, () => 'w').join(' '))
  expect(many.split(',')).toHaveLength(256)
  // Past 64 words the lookup is a Map: the same literal.
  expect(searchVector(Array.from({ length: 70 }, (_, i) => ['a', 'b', 'c'][i % 3]).join(' '))).toBe(
    ['a', 'b', 'c']
      .map(
        (w, k) =>
          `'${w}':${Array.from({ length: 70 }, (_, i) => i + 1)
            .filter((i) => (i - 1) % 3 === k)
            .join(',')}`,
      )
      .join(' '),
  )
})

test("a query keeps the words in order, the last a prefix, folded like the vector's", () => {
  expect(searchQuery(['rate', 'limit'])).toBe("'rate' <-> 'limit':*")
  expect(searchQuery(['café'])).toBe("'cafe':*")
  expect(searchQuery([])).toBeUndefined()
})

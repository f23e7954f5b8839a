import { expect, test } from 'bun:test'
import { pathOf } from './ingress.ts'

test("a request's path is what new URL(url).pathname gives, plain or not", () => {
  const urls = [
    'http://127.0.0.1:8080/v1/chat/completions',
    'https://gateway.example:443/v1/models/openai/gpt-4.1?x=1',
    'http://h/v1/models/a%20b',
    'http://h/v1/../admin/keys',
    'http://h/v1/./chat/completions',
    'http://h/v1/chat/completions?next=/admin#frag',
    'http://h/v1/ünïcode',
    'http://h/v1/a b',
    'http://h/',
    'http://h',
  ]
  for (const url of urls) expect({ url, path: pathOf(url) }).toEqual({ url, path: new URL(url).pathname })
})

import { describe, expect, test } from 'bun:test'
import { upstreamUrl } from './upstream-url.ts'

describe('upstreamUrl', () => {
  test('each value is one encoded segment under the base path; the query is appended encoded', () => {
    expect(String(upstreamUrl('https://g.example/v1beta')`/models/${'gemini-2.0-flash'}:generateContent`)).toBe('https://g.example/v1beta/models/gemini-2.0-flash:generateContent')
    expect(String(upstreamUrl('https://g.example/v1beta')`/models/${'a/../../b?c#d%2e'}:generateContent`)).toBe(
      'https://g.example/v1beta/models/a%2F..%2F..%2Fb%3Fc%23d%252e:generateContent',
    )
    expect(String(upstreamUrl('https://a.example/openai', { 'api-version': '2024-10-21', skipped: undefined })`/deployments/${'gpt 4o@x:y'}/chat/completions`)).toBe(
      'https://a.example/openai/deployments/gpt%204o%40x%3Ay/chat/completions?api-version=2024-10-21',
    )
    expect(String(upstreamUrl('http://127.0.0.1:11434', { pageToken: 'a&b=c' })`/models`)).toBe('http://127.0.0.1:11434/models?pageToken=a%26b%3Dc')
  })

  test('a value that is empty or only dots, or a path that leaves the base, throws before any request', () => {
    for (const value of ['', '.', '..', '...']) expect(() => upstreamUrl('https://g.example/v1beta')`/models/${value}:generateContent`).toThrow('may not be')
    expect(() => upstreamUrl('https://g.example/v1beta')`/../v1/cachedContents`).toThrow('is not under')
    expect(() => upstreamUrl('https://g.example/v1')`x`).toThrow('is not under')
    expect(() => upstreamUrl('https://g.example/v1')`/models#frag`).toThrow('is not under')
    expect(() => upstreamUrl('https://g.example/v1')`@evil.example/models`).toThrow('is not under')
  })
})

import { describe, expect, test } from 'bun:test'
import { upstreamRawPath, upstreamUrl } from './upstream-url.ts'

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

describe('upstreamRawPath (the pass-through)', () => {
  test('a client path and query under the base URL, kept exactly as written', () => {
    expect(String(upstreamRawPath('https://api.anthropic.com/v1', 'messages', ''))).toBe('https://api.anthropic.com/v1/messages')
    expect(String(upstreamRawPath('http://127.0.0.1:4566', 'model/us.anthropic.claude-sonnet-4-20250514-v1%3A0/converse-stream', ''))).toBe(
      'http://127.0.0.1:4566/model/us.anthropic.claude-sonnet-4-20250514-v1%3A0/converse-stream',
    )
    expect(String(upstreamRawPath('https://g.example/v1beta', 'models/gemini-2.5-pro:streamGenerateContent', 'alt=sse'))).toBe(
      'https://g.example/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse',
    )
  })

  test('dot segments in any spelling, encoded slashes, empty segments and odd characters are refused', () => {
    for (const path of [
      '',
      '../v1/files',
      'models/..',
      'models/%2e%2E',
      'models/.%2e/x',
      'a//b',
      'models/a%2Fb',
      'models/a%5cb',
      'a\\b',
      'models/a b',
      'models/a#b',
      'a?b',
      'x/%00',
    ])
      expect(upstreamRawPath('https://g.example/v1beta', path, '')).toBeUndefined()
    expect(upstreamRawPath('https://g.example/v1beta', 'models/x', 'a=1#frag')).toBeUndefined()
    expect(upstreamRawPath('https://g.example/v1beta', 'models/x', 'a=<b>')).toBeUndefined()
  })
})

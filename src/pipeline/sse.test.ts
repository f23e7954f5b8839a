import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { SseParser } from './sse.ts'

const enc = new TextEncoder()

function parseInPieces(text: string, cuts: number[]) {
  const bytes = enc.encode(text)
  const parser = new SseParser()
  const events = []
  let last = 0
  for (const cut of [...cuts.filter((c) => c > 0 && c < bytes.length)].sort((a, b) => a - b)) {
    events.push(...parser.push(bytes.slice(last, cut)))
    last = cut
  }
  events.push(...parser.push(bytes.slice(last)), ...parser.end())
  return events
}

describe('SseParser', () => {
  test('data-only events, named events, comments, multi-line data', () => {
    const events = parseInPieces(': ping\n\ndata: {"a":1}\n\nevent: response.created\ndata: {"b":2}\n\ndata: x\ndata: y\n\ndata: [DONE]\n\n', [])
    expect(events).toEqual([
      { event: undefined, data: '{"a":1}' },
      { event: 'response.created', data: '{"b":2}' },
      { event: undefined, data: 'x\ny' },
      { event: undefined, data: '[DONE]' },
    ])
  })

  test('CRLF and CR line ends', () => {
    expect(parseInPieces('data: a\r\n\r\ndata: b\r\rdata: c\n\n', [])).toEqual([
      { event: undefined, data: 'a' },
      { event: undefined, data: 'b' },
      { event: undefined, data: 'c' },
    ])
  })

  test('an event without trailing blank line is flushed at the end', () => {
    expect(parseInPieces('data: tail', [])).toEqual([{ event: undefined, data: 'tail' }])
  })

  test('any split of the bytes, CRLF and multi-byte characters included, gives the same events', () => {
    const payload = 'data: {"t":"你好🙂"}\r\n\r\nevent: e\ndata: ünï\n\n: c\n\ndata: 🚀\r\n\r\n'
    const whole = parseInPieces(payload, [])
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: enc.encode(payload).length }), { maxLength: 12 }), (cuts) => {
        expect(parseInPieces(payload, cuts)).toEqual(whole)
      }),
    )
  })
})

describe('a parser told which events matter', () => {
  const events = [
    'data: {"choices":[{"delta":{"content":"h\u00e9llo"}}]}',
    'event: x\ndata: {"choices":[{"delta":{"content":"w"}}]}',
    'data: {"choices":[],"usage":{"total_tokens":3}}',
    'data: {"error":{"message":"boom"}}',
    'data: [DONE]',
  ]
  const kept = (list: { data: string }[]) => list.map((e) => e.data).filter((d) => d.includes('"usage"') || d.includes('"error"'))

  for (const eol of ['\n', '\r\n', '\r']) {
    test(`returns the same matching events as a full parse, however the bytes are split (${JSON.stringify(eol)})`, () => {
      const bytes = new TextEncoder().encode(events.map((e) => e.replaceAll('\n', eol) + eol + eol).join(''))
      const expected = kept(new SseParser().push(bytes))
      expect(expected).toHaveLength(2)
      for (let seed = 1; seed <= 200; seed++) {
        const parser = new SseParser(['"usage"', '"error"'])
        const out: { data: string }[] = []
        let at = 0
        let r = seed
        while (at < bytes.length) {
          r = (r * 1103515245 + 12345) % 2 ** 31
          const next = Math.min(bytes.length, at + 1 + (r % 90))
          out.push(...parser.push(bytes.subarray(at, next)))
          at = next
        }
        out.push(...parser.end())
        expect(kept(out)).toEqual(expected)
      }
    })
  }

  test('a read of whole events without a marker is skipped unparsed', () => {
    const parser = new SseParser(['"usage"'])
    expect(parser.push(new TextEncoder().encode('data: {"a":1}\n\ndata: {"b":2}\n\n'))).toEqual([])
    expect(parser.push(new TextEncoder().encode('data: {"usage":1}\n\n'))).toEqual([{ event: undefined, data: '{"usage":1}' }])
  })
})

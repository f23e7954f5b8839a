import { expect, test } from 'bun:test'
import { readBatchInput } from './input-file.ts'

const URL = '/v1/chat/completions'
const line = (customId: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ custom_id: customId, method: 'POST', url: URL, body: { model: 'm', messages: [] }, ...extra })

/** The text as a stream cut into `size`-byte chunks, so lines and characters straddle chunks. */
function chunked(text: string | Uint8Array, size: number): ReadableStream<Uint8Array> {
  const bytes = typeof text === 'string' ? new TextEncoder().encode(text) : text
  let at = 0
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close()
      controller.enqueue(bytes.slice(at, at + size))
      at += size
    },
  })
}

test('lines straddling chunks (a multi-byte character cut in two), blank lines, CRLF and no final newline are read', async () => {
  const text = `${line('é-1')}\r\n\n${line('🙂-2', { body: { model: 'm', messages: [{ role: 'user', content: 'ünïcödé 🙂' }] } })}\n   \n${line('3')}`
  for (const size of [1, 3, 7, 1000]) {
    const read = await readBatchInput(chunked(text, size), URL, 10)
    expect(read).toEqual({
      ok: true,
      lines: [
        { customId: 'é-1', body: { model: 'm', messages: [] } },
        { customId: '🙂-2', body: { model: 'm', messages: [{ role: 'user', content: 'ünïcödé 🙂' }] } },
        { customId: '3', body: { model: 'm', messages: [] } },
      ],
    })
  }
})

test('each problem is reported with its 1-based line number and code', async () => {
  const text = [
    line('a'),
    '[1, 2]',
    JSON.stringify({ method: 'POST', url: URL, body: {} }),
    line('x'.repeat(513)),
    line('a'),
    line('b', { method: 'PUT' }),
    line('c', { url: '/v1/embeddings' }),
    line('d', { body: [1] }),
    line('e', { body: { model: 'm', stream: true } }),
  ].join('\n')
  const read = await readBatchInput(chunked(text, 64), URL, 100)
  expect(read.ok).toBe(false)
  if (read.ok) return
  expect(read.errors.map((e) => [e.line, e.code, e.param])).toEqual([
    [2, 'invalid_json_line', null],
    [3, 'missing_required_parameter', 'custom_id'],
    [4, 'invalid_custom_id', 'custom_id'],
    [5, 'duplicate_custom_id', 'custom_id'],
    [6, 'invalid_method', 'method'],
    [7, 'mismatched_endpoint', 'url'],
    [8, 'invalid_body', 'body'],
    [9, 'invalid_body', 'body.stream'],
  ])
})

test('more requests than allowed, an empty file and bytes that are not UTF-8 are refused', async () => {
  const many = await readBatchInput(chunked([line('1'), line('2'), line('3')].join('\n'), 10), URL, 2)
  expect(many).toEqual({ ok: false, errors: [{ code: 'too_many_requests', message: 'The input file has more than 2 requests.', param: null, line: 3 }] })
  expect(await readBatchInput(chunked('\n \n', 4), URL, 2)).toEqual({
    ok: false,
    errors: [{ code: 'empty_file', message: 'The input file has no requests.', param: null, line: null }],
  })
  const notUtf8 = await readBatchInput(chunked(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d, 0x0a]), 2), URL, 2)
  expect(notUtf8.ok ? [] : notUtf8.errors.map((e) => e.code)).toEqual(['invalid_file_encoding'])
})

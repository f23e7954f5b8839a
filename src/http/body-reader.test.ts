import { expect, test } from 'bun:test'
import { readBody } from './body-reader.ts'

const LIMITS = { maxBytes: 64 * 1024 * 1024, deadlineMs: 5000, maxJsonValues: 1000 }

/** A POST whose body arrives as `pieces`, with its length declared or chunked. */
function post(pieces: string[], declared: boolean): Request {
  const bytes = pieces.map((p) => new TextEncoder().encode(p))
  let pulled = 0
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulled++
      const next = bytes.shift()
      if (next) controller.enqueue(next)
      else controller.close()
    },
  })
  const length = pieces.reduce((sum, p) => sum + Buffer.byteLength(p), 0)
  const request = new Request('http://gateway.test/v1/chat/completions', { method: 'POST', body, headers: declared ? { 'content-length': String(length) } : {} })
  return Object.assign(request, { pulled: () => pulled })
}

for (const declared of [true, false]) {
  const how = declared ? 'declared length' : 'chunked'
  test(`${how}: a body of too many values is refused as soon as it passes the limit, the rest unread`, async () => {
    const pieces = [`{"model":"x","messages":[`, ...Array.from({ length: 50 }, () => '{},'.repeat(100)), '{}]}']
    const request = post(pieces, declared)
    expect(await readBody(request, LIMITS)).toEqual({ kind: 'too_many_values' })
    expect((request as Request & { pulled(): number }).pulled()).toBeLessThan(20)
  })

  test(`${how}: a large body of few values (one long string) is read whole`, async () => {
    const text = `{"model":"x","messages":[{"role":"user","content":"${'a,{['.repeat(10_000)}"}]}`
    const read = await readBody(post([text.slice(0, 5000), text.slice(5000)], declared), LIMITS)
    expect(read).toEqual({ kind: 'read', text, size: text.length })
  })
}

test('without maxJsonValues nothing is counted (admin bodies)', async () => {
  const text = `[${'{},'.repeat(2000)}{}]`
  const read = await readBody(post([text], true), { maxBytes: 1024 * 1024, deadlineMs: 5000 })
  expect(read).toMatchObject({ kind: 'read', size: text.length })
})

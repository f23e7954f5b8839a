import { afterAll, describe, expect, test } from 'bun:test'
import { boundedFetch, UpstreamRedirected, UpstreamResponseTooLarge } from './bounded-fetch.ts'

const chunked = (text: string) =>
  new ReadableStream({
    start(c) {
      c.enqueue(new TextEncoder().encode(text))
      c.close()
    },
  })

const server = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  fetch(request) {
    const path = new URL(request.url).pathname
    if (path === '/redirect') return new Response(null, { status: 307, headers: { location: 'http://elsewhere.invalid/' } })
    if (path === '/big-event') return new Response(chunked(`event: message\ndata: ${'x'.repeat(5000)}\n\n`), { headers: { 'content-type': 'text/event-stream' } })
    if (path === '/many-events') return new Response(chunked(`data: ${'y'.repeat(900)}\n\n`.repeat(20)), { headers: { 'content-type': 'text/event-stream' } })
    return new Response(chunked('z'.repeat(5000)), { headers: { 'content-type': 'application/json' } })
  },
})
afterAll(() => server.stop(true))
const url = (p: string) => `http://127.0.0.1:${server.port}${p}`
const f = boundedFetch(4096)

describe('boundedFetch', () => {
  test('a POST answer over the limit fails the fetch itself (JSON or one event stream)', async () => {
    await expect(f(url('/json'), { method: 'POST' })).rejects.toBeInstanceOf(UpstreamResponseTooLarge)
    await expect(f(url('/big-event'), { method: 'POST' })).rejects.toBeInstanceOf(UpstreamResponseTooLarge)
  })

  test('a GET event stream counts per event: many small events pass, one huge event fails the stream', async () => {
    expect((await (await f(url('/many-events'))).text()).length).toBeGreaterThan(4096)
    await expect((await f(url('/big-event'))).text()).rejects.toBeInstanceOf(UpstreamResponseTooLarge)
  })

  test('redirects are never followed', async () => {
    await expect(f(url('/redirect'), { method: 'POST' })).rejects.toBeInstanceOf(UpstreamRedirected)
  })
})

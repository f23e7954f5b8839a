import { expect, test } from 'bun:test'
import { GatewayError } from '../errors/gateway-error.ts'
import { passBytes } from './byte-pump.ts'

function recorder() {
  const seen = { bytes: 0, chunks: 0, ends: [] as { error?: GatewayError; clientAborted?: boolean }[] }
  return {
    seen,
    flow: {
      chunk: (chunk: Uint8Array) => {
        seen.bytes += chunk.byteLength
        seen.chunks++
      },
      ended: (how: { error?: GatewayError; clientAborted?: boolean }) => void seen.ends.push(how),
    },
  }
}

const source = (chunks: Uint8Array[], fail?: Error) =>
  new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks.shift()
      if (next) controller.enqueue(next)
      else if (fail) controller.error(fail)
      else controller.close()
    },
  })

test('the bytes pass as they came, counted, and the end is told once', async () => {
  const { seen, flow } = recorder()
  const out = await new Response(passBytes(source([new Uint8Array([1, 2, 3]), new Uint8Array(1000)]), flow)).arrayBuffer()
  expect(new Uint8Array(out).subarray(0, 3)).toEqual(new Uint8Array([1, 2, 3]))
  expect(out.byteLength).toBe(1003)
  expect(seen).toEqual({ bytes: 1003, chunks: 2, ends: [{}] })
})

test('a client that goes away ends it as aborted; an upstream that breaks off errors the client stream', async () => {
  const cancelled = recorder()
  const reader = passBytes(source([new Uint8Array(10), new Uint8Array(10)]), cancelled.flow).getReader()
  await reader.read()
  await reader.cancel('gone')
  expect(cancelled.seen.ends).toEqual([{ clientAborted: true }])

  const broken = recorder()
  const failure = new GatewayError({ status: 502, type: 'provider_error', code: 'upstream_interrupted', message: 'cut' })
  const stream = passBytes(source([new Uint8Array(5)], failure), broken.flow)
  await expect(new Response(stream).arrayBuffer()).rejects.toBe(failure)
  expect(broken.seen.ends).toEqual([{ error: failure }])
  expect(broken.seen.bytes).toBe(5)
})

test('freeSpentChunks: the HTTP server gets every byte, and each chunk is freed once the server asked for the next', async () => {
  const chunks = Array.from({ length: 40 }, (_, i) => new Uint8Array(50_000).fill(i))
  const expected = new Bun.CryptoHasher('sha256')
  for (const chunk of chunks) expected.update(chunk)
  const { seen, flow } = recorder()
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response(passBytes(source([...chunks]), flow, { freeSpentChunks: true })) })
  try {
    const body = await (await fetch(server.url)).arrayBuffer()
    expect(new Bun.CryptoHasher('sha256').update(body).digest('hex')).toBe(expected.digest('hex'))
    expect(seen.ends).toEqual([{}])
    expect(chunks.every((chunk) => chunk.buffer.detached)).toBe(true)
  } finally {
    server.stop(true)
  }
})

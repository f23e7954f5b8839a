import { afterEach, expect, test } from 'bun:test'
import { GatewayError } from '../../errors/gateway-error.ts'
import type { ProviderInstance } from '../../providers/types.ts'
import { upstreamUrl } from '../../providers/upstream-url.ts'
import { fetchBatchUpstream, jsonLines } from './provider-http.ts'

let server: ReturnType<typeof Bun.serve> | undefined
afterEach(() => server?.stop(true))

const provider = (baseUrl: string): ProviderInstance => ({ name: 'p', type: 'openai', baseUrl, apiKey: 'sk-secret-key-0123456789', staticModels: [], nativeResponses: true })

test("a result file that stalls mid-way ends with the provider's failure once the caller's signal fires, instead of hanging", async () => {
  server = Bun.serve({
    port: 0,
    idleTimeout: 0,
    fetch: () =>
      new Response(
        new ReadableStream({
          start(controller) {
            controller.enqueue(new TextEncoder().encode('{"custom_id":"a"}\n{"custom_'))
            // …and nothing more, never closed.
          },
        }),
      ),
  })
  const p = provider(`http://127.0.0.1:${server.port}/v1`)
  const started = performance.now()
  const response = await fetchBatchUpstream(p, { url: upstreamUrl(p.baseUrl)`/files/f/content`, method: 'GET', headers: {} }, AbortSignal.timeout(300))
  if (response instanceof GatewayError) throw response
  const seen: unknown[] = []
  for await (const line of jsonLines(p, response.body)) seen.push(line instanceof GatewayError ? line.code : line)
  expect(seen).toEqual([{ custom_id: 'a' }, 'stream_interrupted'])
  expect(performance.now() - started).toBeLessThan(5_000)
})

test('lines split across reads, a last line without a newline, blank lines skipped; a line that is not an object ends the reading', async () => {
  const chunks = ['{"a":1}\n\n{"b":', '2}\r\n{"c":"é', '"}']
  server = Bun.serve({ port: 0, fetch: () => new Response(new ReadableStream({ start: (c) => (chunks.forEach((t) => c.enqueue(new TextEncoder().encode(t))), c.close()) })) })
  const p = provider(`http://127.0.0.1:${server.port}/v1`)
  const response = (await fetchBatchUpstream(p, { url: upstreamUrl(p.baseUrl)`/x`, method: 'GET', headers: {} }, AbortSignal.timeout(5_000))) as Response
  const lines: unknown[] = []
  for await (const line of jsonLines(p, response.body)) lines.push(line)
  expect(lines).toEqual([{ a: 1 }, { b: 2 }, { c: 'é' }])
  const bad = new Response('{"a":1}\n[1,2]\n{"b":2}\n')
  const out: unknown[] = []
  for await (const line of jsonLines(p, bad.body)) out.push(line instanceof GatewayError ? line.code : line)
  expect(out).toEqual([{ a: 1 }, 'upstream_invalid_response'])
})

test("a provider's error answer is a GatewayError without the key it was sent", async () => {
  server = Bun.serve({ port: 0, fetch: (req) => Response.json({ error: { message: `bad key ${req.headers.get('authorization')}` } }, { status: 401 }) })
  const p = provider(`http://127.0.0.1:${server.port}/v1`)
  const error = (await fetchBatchUpstream(
    p,
    { url: upstreamUrl(p.baseUrl)`/batches`, method: 'GET', headers: { authorization: `Bearer ${p.apiKey}` } },
    AbortSignal.timeout(5_000),
  )) as GatewayError
  expect(error).toBeInstanceOf(GatewayError)
  expect(error.status).toBe(502)
  expect(error.message).not.toContain(p.apiKey!)
})

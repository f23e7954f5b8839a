import { afterAll, expect, test } from 'bun:test'
import { GatewayError } from '../errors/gateway-error.ts'
import { fetchModelIds, type ModelListRequest } from './model-list.ts'
import { upstreamUrl } from './upstream-url.ts'

// Pages a, b (then no next page); /broken answers a body that is no model list.
const server = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  fetch(req) {
    const url = new URL(req.url)
    if (url.pathname === '/moved') return new Response(null, { status: 302, headers: { location: `${url.origin}/models` } })
    if (url.pathname === '/broken') return new Response('<html>', { headers: { 'content-type': 'text/html' } })
    if (req.headers.get('x-key') !== 'k') return new Response('no', { status: 403 })
    const page = url.searchParams.get('page') ?? 'a'
    return Response.json(page === 'a' ? { ids: ['m1', 'm2'], next: 'b' } : { ids: ['m3'] })
  },
})
afterAll(() => server.stop(true))

const request = (over: Partial<ModelListRequest> = {}): ModelListRequest => ({
  provider: 'p',
  url: (token) => upstreamUrl(server.url.origin, { page: token })`/models`,
  headers: { 'x-key': 'k' },
  read: (body) => (Array.isArray((body as { ids?: unknown })?.ids) ? (body as { ids: string[]; next?: string }) : undefined),
  ...over,
})

test('follows the pages the provider names and returns every id', async () => {
  expect(await fetchModelIds(request(), AbortSignal.timeout(2000))).toEqual(['m1', 'm2', 'm3'])
})

test('a refusal, a body that is no model list and an unreachable host are returned errors naming the provider', async () => {
  const refused = await fetchModelIds(request({ headers: {} }), AbortSignal.timeout(2000))
  expect(refused).toBeInstanceOf(GatewayError)
  expect((refused as GatewayError).toBody()).toMatchObject({
    status_code: 502,
    provider: 'p',
    code: 'model_list_unavailable',
    message: "Provider 'p': GET /models answered HTTP 403",
  })
  const broken = await fetchModelIds(request({ url: () => upstreamUrl(server.url.origin)`/broken` }), AbortSignal.timeout(2000))
  expect((broken as GatewayError).message).toBe("Provider 'p': GET /models answered something that is not a model list")
  const unreachable = await fetchModelIds(request({ url: () => upstreamUrl('http://127.0.0.1:9')`/models` }), AbortSignal.timeout(2000))
  expect(unreachable).toBeInstanceOf(GatewayError)
})

test('a redirect is not followed: the list is unavailable and the Location is never asked', async () => {
  const moved = await fetchModelIds(request({ url: () => upstreamUrl(server.url.origin)`/moved` }), AbortSignal.timeout(2000))
  expect((moved as GatewayError).message).toBe("Provider 'p': GET /models answered a redirect (HTTP 302), which the gateway does not follow; check the provider's base URL")
})

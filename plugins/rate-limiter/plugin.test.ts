import { expect, test } from 'bun:test'
import type { Outcome } from '../../src/pipeline/types.ts'
import { makeContext, makeDeps, pluginHooks } from '../../test/helpers/plugin-harness.ts'
import { rateLimiterConfig } from './manifest.ts'
import { rateLimiter } from './plugin.ts'

async function setup(limit: Record<string, unknown>) {
  const deps = await makeDeps()
  await deps.limits.addRateLimit({ scope: { key_id: 'key_1' }, ...limit })
  return { deps, hooks: pluginHooks(rateLimiter, rateLimiterConfig.parse({}), deps) }
}

function request(keyId = 'key_1', userPath?: string) {
  const ctx = makeContext({ body: { model: 'm', messages: [{ role: 'user', content: 'hello there' }], max_tokens: 10 } })
  ctx.principal = { method: 'managed_key', id: keyId, keyId }
  ctx.userPath = userPath
  return ctx
}

const done = (usage?: number) =>
  ({
    status: 200,
    clientAborted: false,
    bytesOut: 0,
    responseHeaders: new Headers(),
    durationNs: 0,
    usage: usage === undefined ? undefined : { total_tokens: usage },
  }) as unknown as Outcome

test('requests per minute: the limit+1st request is a 429 with Retry-After and x-ratelimit headers', async () => {
  const { hooks } = await setup({ requests_per_minute: 2 })
  for (let i = 0; i < 2; i++) expect(await hooks.before!(request())).toEqual({ kind: 'continue' })
  const ctx = request()
  const decision = (await hooks.before!(ctx)) as { kind: string; response: Response }
  expect(decision.response.status).toBe(429)
  expect(Number(decision.response.headers.get('retry-after'))).toBeGreaterThan(0)
  expect(decision.response.headers.get('x-ratelimit-limit-requests')).toBe('2')
  expect(decision.response.headers.get('x-ratelimit-remaining-requests')).toBe('0')
  expect(ctx.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded' })
  expect(await hooks.before!(request('key_other'))).toEqual({ kind: 'continue' })
})

test('successful answers carry the remaining counts', async () => {
  const { hooks } = await setup({ requests_per_minute: 5, tokens_per_minute: 1000 })
  const ctx = request()
  await hooks.before!(ctx)
  const res = (await hooks.onResponse!(ctx, new Response('{}'))) as Response
  expect(res.headers.get('x-ratelimit-remaining-requests')).toBe('4')
  expect(Number(res.headers.get('x-ratelimit-remaining-tokens'))).toBeLessThan(1000)
})

test('concurrent requests are released on completion', async () => {
  const { hooks } = await setup({ concurrent: 1 })
  const first = request()
  await hooks.before!(first)
  expect(((await hooks.before!(request())) as { kind: string }).kind).toBe('respond')
  await hooks.onComplete!(first, done())
  expect(await hooks.before!(request())).toEqual({ kind: 'continue' })
})

test('tokens per minute are settled with the real usage', async () => {
  const { hooks, deps } = await setup({ tokens_per_minute: 100 })
  const ctx = request()
  await hooks.before!(ctx)
  await hooks.onComplete!(ctx, done(95))
  // 95 of 100 used: a request estimated at ~15 tokens no longer fits
  expect(((await hooks.before!(request())) as { kind: string }).kind).toBe('respond')
  expect(deps.limits.rateLimits).toHaveLength(1)
})

test('user path limits cover the subtree', async () => {
  const deps = await makeDeps()
  await deps.limits.addRateLimit({ scope: { user_path: '/acme' }, requests_per_minute: 1 })
  const hooks = pluginHooks(rateLimiter, rateLimiterConfig.parse({}), deps)
  expect(await hooks.before!(request('k1', '/acme/team-a'))).toEqual({ kind: 'continue' })
  expect(((await hooks.before!(request('k2', '/acme/team-b'))) as { kind: string }).kind).toBe('respond')
  expect(await hooks.before!(request('k3', '/other'))).toEqual({ kind: 'continue' })
})

test('invalid definitions name the field', async () => {
  const deps = await makeDeps()
  await expect(deps.limits.addRateLimit({ scope: { key_id: 'k' } })).rejects.toMatchObject({ status: 400 })
  await expect(deps.limits.addRateLimit({ scope: {}, requests_per_minute: 1 })).rejects.toMatchObject({ param: 'scope' })
  await expect(deps.limits.addRateLimit({ scope: { key_id: 'k' }, requests_per_minute: -1 })).rejects.toMatchObject({ param: 'requests_per_minute' })
})

test("a provider batch's answer replayed through the pipeline is not counted again: its line was counted when handed over", async () => {
  const { hooks } = await setup({ requests_per_minute: 1 })
  const handedOver = request()
  handedOver.batchLine = { batchId: 'batch_1', customId: 'a', finished: () => {}, handedOver: true }
  expect(await hooks.before!(handedOver)).toEqual({ kind: 'continue' })
  const replayed = request()
  replayed.batchLine = { batchId: 'batch_1', customId: 'a', finished: () => {}, batchPriced: true, rateCounted: true }
  expect(await hooks.before!(replayed)).toEqual({ kind: 'continue' })
  // The window's one request is the handed-over line's: the next live request is refused.
  expect(((await hooks.before!(request())) as { kind: string }).kind).toBe('respond')
})

import { describe, expect, test } from 'bun:test'
import { GatewayError } from '../../src/errors/gateway-error.ts'
import type { AdapterCall, ProviderAdapter } from '../../src/providers/types.ts'
import { makeContext, makeDeps, pluginHooks } from '../../test/helpers/plugin-harness.ts'
import { CircuitBreaker } from './circuit-breaker.ts'
import { failoverConfig } from './manifest.ts'
import { candidateTargets, failover } from './plugin.ts'
import { backoffMs, retryAfterMs } from './retry-delay.ts'
import type { AuditWriterStats } from '../../src/stores/write-path/audit-writer.ts'
import { GatewayMetrics } from '../../src/observability/metrics.ts'
import { parsePrometheusText } from '../../test/helpers/prometheus-text.ts'

/** An adapter whose answer per upstream model is scripted: a status to fail with, or 200. */
function scriptedAdapter(script: Record<string, number[]>) {
  const calls: string[] = []
  const adapter: ProviderAdapter = {
    id: 'openai-compatible',
    async chatCompletions(call: AdapterCall) {
      const key = call.target.selector
      calls.push(`${call.attemptKind}:${key}`)
      call.ctx.attempts.push({
        seq: call.ctx.attempts.length + 1,
        kind: call.attemptKind,
        model: call.target.model,
        provider_name: call.provider.name,
        provider_type: call.provider.type,
        started_at: '',
        duration_ns: 0,
        success: true,
        status_code: 200,
      })
      const status = script[key]?.shift() ?? 200
      if (status !== 200) {
        call.ctx.attempts.at(-1)!.status_code = status
        return new GatewayError({
          status: status === 401 || status === 307 ? 502 : status,
          type: 'provider_error',
          provider: call.provider.name,
          message: 'scripted',
          headers: status === 429 ? { 'retry-after-ms': '1' } : {},
        })
      }
      return new Response('{"ok":true}', { headers: { 'content-type': 'application/json' } })
    },
    listModels: async () => [],
  }
  return { adapter, calls }
}

const env = {
  OPENAI_API_KEY: 'k',
  GROQ_API_KEY: 'k',
  MISTRAL_API_KEY: 'k',
  VIRTUAL_MODELS: JSON.stringify([
    {
      source: 'spread',
      target: 'mistral/m',
      targets: [
        { target: 'openai/a', weight: 1 },
        { target: 'groq/b', weight: 3 },
      ],
    },
  ]),
}

async function run(script: Record<string, number[]>, settings: Record<string, unknown> = {}, model = 'openai/a') {
  const { adapter, calls } = scriptedAdapter(script)
  const deps = await makeDeps(env, { 'openai-compatible': adapter })
  const hooks = pluginHooks(failover, failoverConfig.parse({ initial_backoff_ms: 1, max_backoff_ms: 2, targets: { 'openai/a': ['groq/b', 'mistral/m'] }, ...settings }), deps)
  const ctx = makeContext({ body: { model, messages: [] } })
  const r = deps.catalog.resolve(model)
  if (!r.ok) throw r.error
  ctx.target = r.target
  ctx.alternativeTargets = r.alternatives
  return { hooks, ctx, calls, deps }
}

describe('failover', () => {
  test('the happy path makes one primary call and records no failover', async () => {
    const { hooks, ctx, calls } = await run({})
    expect((await hooks.dispatch!(ctx)).status).toBe(200)
    expect(calls).toEqual(['primary:openai/a'])
    expect(ctx.failover).toBeUndefined()
  })

  test('retries the same target on 5xx and 429, then fails over in order', async () => {
    const { hooks, ctx, calls } = await run({ 'openai/a': [503, 429, 500], 'groq/b': [502] })
    await hooks.dispatch!(ctx)
    expect(calls).toEqual(['primary:openai/a', 'retry:openai/a', 'retry:openai/a', 'failover:groq/b', 'retry:groq/b'])
    expect(ctx.failover).toEqual({ target_model: 'groq/b' })
    expect(ctx.target?.selector).toBe('groq/b')
  })

  test('a refused provider credential or a redirect goes straight to the next target; 4xx is not retried', async () => {
    const auth = await run({ 'openai/a': [401] })
    await auth.hooks.dispatch!(auth.ctx)
    expect(auth.calls).toEqual(['primary:openai/a', 'failover:groq/b'])
    const redirected = await run({ 'openai/a': [307] })
    await redirected.hooks.dispatch!(redirected.ctx)
    expect(redirected.calls).toEqual(['primary:openai/a', 'failover:groq/b'])
    const bad = await run({ 'openai/a': [400] })
    expect(await bad.hooks.dispatch!(bad.ctx)).toMatchObject({ status: 400 })
    expect(bad.calls).toEqual(['primary:openai/a'])
  })

  test('fallbacks the key may not use are never tried; with none left the primary’s failure stands', async () => {
    const { hooks, ctx, calls, deps } = await run({ 'openai/a': [503, 503, 503] })
    ctx.principal = { method: 'managed_key', id: 'k1', keyId: 'k1', allowedModels: ['openai/a', 'mistral/*'] }
    expect(candidateTargets(ctx, failoverConfig.parse({ targets: { 'openai/a': ['groq/b', 'mistral/m'] } }), deps).map((t) => t.selector)).toEqual(['openai/a', 'mistral/m'])
    ctx.principal = { method: 'managed_key', id: 'k1', keyId: 'k1', allowedModels: ['openai/a'] }
    expect(await hooks.dispatch!(ctx)).toMatchObject({ status: 503 })
    expect(calls).toEqual(['primary:openai/a', 'retry:openai/a', 'retry:openai/a'])
  })

  test('when every target fails the last error is returned', async () => {
    const { hooks, ctx, calls } = await run({ 'openai/a': [500, 500, 500], 'groq/b': [503, 503, 503], 'mistral/m': [504, 504, 504] })
    expect(await hooks.dispatch!(ctx)).toMatchObject({ status: 504 })
    expect(calls).toHaveLength(9)
  })

  test('a weighted virtual model spreads by weight and fails over to its other targets', async () => {
    const deps = await makeDeps(env)
    const picks = { 'openai/a': 0, 'groq/b': 0 }
    for (let i = 0; i < 2000; i++) {
      const r = deps.catalog.resolve('spread')
      if (r.ok) picks[r.target.selector as keyof typeof picks]++
    }
    expect(picks['groq/b'] / 2000).toBeGreaterThan(0.68)
    expect(picks['groq/b'] / 2000).toBeLessThan(0.82)
    const { ctx } = await run({}, {}, 'spread')
    const candidates = candidateTargets(ctx, failoverConfig.parse({}), deps).map((t) => t.selector)
    expect(candidates.sort()).toEqual(['groq/b', 'mistral/m', 'openai/a'])
  })

  test('an open circuit skips the target until its cooldown ends', async () => {
    const { hooks, ctx, calls } = await run({ 'openai/a': [500, 500] }, { max_retries: 0, circuit_breaker: { failure_threshold: 2, cooldown_ms: 60_000 } })
    await hooks.dispatch!(ctx)
    const again = () => {
      const next = makeContext({ body: { model: 'openai/a', messages: [] } })
      next.target = { providerName: 'openai', providerType: 'openai', model: 'a', selector: 'openai/a' }
      return hooks.dispatch!(next)
    }
    await again() // second failure opens the circuit
    await again() // skipped: straight to the fallback
    expect(calls).toEqual(['primary:openai/a', 'failover:groq/b', 'primary:openai/a', 'failover:groq/b', 'failover:groq/b'])
  })
})

describe('retry delays and the circuit breaker', () => {
  test('Retry-After in ms, in seconds and as a date', async () => {
    const e = (headers: Record<string, string>) => new GatewayError({ status: 429, type: 'rate_limit_error', message: 'x', headers })
    expect(retryAfterMs(e({ 'retry-after-ms': '120' }))).toBe(120)
    expect(retryAfterMs(e({ 'retry-after': '2' }))).toBe(2000)
    expect(retryAfterMs(e({ 'retry-after': new Date(10_000).toUTCString() }), 4_000)).toBe(6000)
    expect(retryAfterMs(e({}))).toBeUndefined()
  })

  test('backoff doubles, stays in the upper half of its ceiling, and is capped', async () => {
    expect(backoffMs(0, 100, 1000, () => 0)).toBe(50)
    expect(backoffMs(3, 100, 1000, () => 1)).toBe(800)
    expect(backoffMs(10, 100, 1000, () => 1)).toBe(1000)
  })

  test('opens after the threshold, lets one trial through after the cooldown', async () => {
    let now = 0
    const b = new CircuitBreaker(() => now)
    const policy = { failure_threshold: 2, cooldown_ms: 100 }
    b.failed('t', policy)
    expect(b.allows('t', policy)).toBe(true)
    b.failed('t', policy)
    expect(b.state('t', policy)).toBe('open')
    expect(b.allows('t', policy)).toBe(false)
    // A workflow with a higher threshold still lets the target through.
    expect(b.allows('t', { failure_threshold: 3, cooldown_ms: 100 })).toBe(true)
    now = 150
    expect(b.allows('t', policy)).toBe(true)
    expect(b.allows('t', policy)).toBe(false)
    b.succeeded('t')
    expect(b.state('t', policy)).toBe('closed')
  })
})

describe('client-chosen model names do not grow the breaker or its metric', () => {
  test('10,000 distinct made-up models that all fail leave no circuit and no label; a configured target keeps its circuit', async () => {
    const failing: ProviderAdapter = {
      id: 'openai-compatible',
      async chatCompletions(call: AdapterCall) {
        return new GatewayError({ status: 503, type: 'provider_error', provider: call.provider.name, message: 'down' })
      },
      listModels: async () => [],
    }
    const deps = await makeDeps(env, { 'openai-compatible': failing })
    const metrics = new GatewayMetrics(() => new Proxy({}, { get: () => 0 }) as AuditWriterStats)
    deps.metrics = metrics
    try {
      const hooks = pluginHooks(failover, failoverConfig.parse({ max_retries: 0, targets: { 'openai/a': ['groq/b'] } }), deps)
      const dispatch = async (model: string) => {
        const ctx = makeContext({ body: { model, messages: [] } })
        const r = deps.catalog.resolve(model)
        if (!r.ok) throw r.error
        ctx.target = r.target
        return hooks.dispatch!(ctx)
      }
      const started = performance.now()
      for (let i = 0; i < 10_000; i++) expect(await dispatch(`openai/made-up-${i}`)).toMatchObject({ status: 503 })
      await dispatch('openai/a')
      const circuits = parsePrometheusText((await metrics.expose()).text)
        .get('gateway_circuit_breaker_state')!
        .samples.map((s) => s.labels.target)
      expect(circuits.sort()).toEqual(['groq/b', 'openai/a'])
      expect(performance.now() - started).toBeLessThan(20_000)
    } finally {
      metrics.stop()
    }
  })

  test('the breaker holds at most its bound of circuits, dropping the oldest', () => {
    const b = new CircuitBreaker(Date.now, 100)
    const policy = { failure_threshold: 1, cooldown_ms: 60_000 }
    for (let i = 0; i < 10_000; i++) b.failed(`t${i}`, policy)
    const states = [...b.states()]
    expect(states).toHaveLength(100)
    expect(states[0]![0]).toBe('t9900')
    expect(b.allows('t9999', policy)).toBe(false)
    expect(b.allows('t0', policy)).toBe(true)
  })
})

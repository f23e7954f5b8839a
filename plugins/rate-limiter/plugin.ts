/**
 * @module Rate limits (part of the `budget` feature). Fixed windows: counters per limit and window start, so
 * every replica sharing the counters store agrees. Tokens are counted up front (prompt tokens plus max_tokens or
 * an estimate) and settled with the real usage when the request completes. Every answer under a limit carries
 * `x-ratelimit-*` headers like OpenAI's; a refused request gets 429 with `Retry-After`.
 */
import { GatewayError } from '../../src/errors/gateway-error.ts'
import { inScope, type RateLimit } from '../../src/limits/definitions.ts'
import { windowBounds } from '../../src/limits/windows.ts'
import { requestSlot, type RequestContext } from '../../src/pipeline/context.ts'
import { CONTINUE, definePlugin, respondWithError } from '../../src/pipeline/types.ts'
import type { Counters } from '../../src/stores/types.ts'
import { estimatedPromptTokens, requestedOutputTokens } from '../../src/limits/request-estimate.ts'
import { endpoint } from '../../src/protocols/endpoints.ts'
import { rateLimiterManifest } from './manifest.ts'

interface Taken {
  key: string
  delta: number
  ttlMs: number
  kind: Check['kind']
}

interface Check {
  label: string
  key: string
  delta: number
  limit: number
  ttlMs: number
  resetAt: number
  kind: 'requests' | 'tokens' | 'concurrent'
}

interface Reservation {
  taken: Taken[]
  estimatedTokens: number
  headers: Record<string, string>
}

const reservationSlot = requestSlot<Reservation>('rate-limiter')

const seconds = (ms: number) => `${Math.max(1, Math.ceil(ms / 1000))}s`

function checksFor(limit: RateLimit, now: number, tokens: number): Check[] {
  const minute = windowBounds('minute', now)
  const day = windowBounds('day', now)
  const checks: Check[] = []
  const add = (label: string, kind: Check['kind'], value: number | undefined, window: { start: number; end: number } | undefined, delta: number) => {
    if (value === undefined) return
    const key = window ? `rl:${limit.id}:${label}:${window.start}` : `rl:${limit.id}:${label}`
    checks.push({ label, key, delta, limit: value, ttlMs: window ? window.end - now + 1000 : 3_600_000, resetAt: window?.end ?? now + 1000, kind })
  }
  add('requests per minute', 'requests', limit.requests_per_minute, minute, 1)
  add('requests per day', 'requests', limit.requests_per_day, day, 1)
  add('tokens per minute', 'tokens', limit.tokens_per_minute, minute, tokens)
  add('tokens per day', 'tokens', limit.tokens_per_day, day, tokens)
  add('concurrent requests', 'concurrent', limit.concurrent, undefined, 1)
  return checks
}

/** Prompt and output tokens as the request's API counts them (src/limits/request-estimate.ts). */
async function estimateTokens(ctx: RequestContext, defaultOutput: number): Promise<number> {
  const { api } = endpoint(ctx.endpoint)
  return (await estimatedPromptTokens(api, ctx.body)) + requestedOutputTokens(api, ctx.body, defaultOutput)
}

async function rollBack(counters: Counters, taken: Taken[]): Promise<void> {
  for (const t of taken) await counters.add(t.key, -t.delta, t.ttlMs)
}

export const rateLimiter = definePlugin({
  manifest: rateLimiterManifest,
  create({ stores, limits }) {
    const counters = stores.counters
    return {
      async before(ctx, config) {
        const applicable = limits.rateLimits.filter((l) => inScope(l.scope, ctx.principal?.keyId, ctx.userPath))
        if (applicable.length === 0 || !endpoint(ctx.endpoint).governance.limits || ctx.batchLine?.rateCounted) return CONTINUE
        const now = Date.now()
        const needsTokens = applicable.some((l) => l.tokens_per_minute !== undefined || l.tokens_per_day !== undefined)
        const tokens = needsTokens ? await estimateTokens(ctx, config.default_output_tokens_estimate) : 0
        const reservation: Reservation = { taken: [], estimatedTokens: tokens, headers: {} }
        for (const limit of applicable) {
          for (const check of checksFor(limit, now, tokens)) {
            const result = await counters.addWithin(check.key, check.delta, check.limit, check.ttlMs)
            if (!result.ok) {
              await rollBack(counters, reservation.taken)
              const retryMs = check.resetAt - now
              const headers: Record<string, string> = { 'retry-after': String(Math.max(1, Math.ceil(retryMs / 1000))), ...reservation.headers }
              if (check.kind !== 'concurrent') {
                headers[`x-ratelimit-limit-${check.kind}`] = String(check.limit)
                headers[`x-ratelimit-remaining-${check.kind}`] = String(Math.max(0, check.limit - result.value))
                headers[`x-ratelimit-reset-${check.kind}`] = seconds(retryMs)
              }
              return respondWithError(
                ctx,
                new GatewayError({
                  status: 429,
                  type: 'rate_limit_error',
                  code: 'rate_limit_exceeded',
                  headers,
                  message: `Rate limit reached: ${check.label} (limit ${check.limit}) for ${limit.scope.key_id ? `key ${limit.scope.key_id}` : `user path ${limit.scope.user_path}`}. Try again in ${seconds(retryMs)}.`,
                }),
              )
            }
            reservation.taken.push({ key: check.key, delta: check.delta, ttlMs: check.ttlMs, kind: check.kind })
            if (check.kind !== 'concurrent' && check.label.endsWith('minute')) {
              reservation.headers[`x-ratelimit-limit-${check.kind}`] = String(check.limit)
              reservation.headers[`x-ratelimit-remaining-${check.kind}`] = String(Math.max(0, check.limit - result.value))
              reservation.headers[`x-ratelimit-reset-${check.kind}`] = seconds(check.resetAt - now)
            }
          }
        }
        ctx.setState(reservationSlot, reservation)
        return CONTINUE
      },
      onResponse(ctx, response) {
        const r = ctx.state(reservationSlot)
        if (!r || Object.keys(r.headers).length === 0) return response
        const headers = new Headers(response.headers)
        for (const [k, v] of Object.entries(r.headers)) headers.set(k, v)
        return new Response(response.body, { status: response.status, headers })
      },
      async onComplete(ctx, outcome) {
        const r = ctx.state(reservationSlot)
        if (!r) return
        const actualTokens = outcome.usage?.total_tokens
        for (const t of r.taken) {
          if (t.kind === 'concurrent') await counters.add(t.key, -1, t.ttlMs)
          else if (t.kind === 'tokens' && actualTokens !== undefined) await counters.add(t.key, actualTokens - r.estimatedTokens, t.ttlMs)
        }
      },
    }
  },
})

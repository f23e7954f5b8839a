/**
 * @module Response cache (feature `cache`). Successful answers of the endpoints whose API caches (`cache` of its
 * shape, src/protocols/api-shape.ts: chat completions) are stored under an exact-match key
 * (whose entry by `scope`, workflow version, target, canonical body: cache-key.ts) for `ttl_seconds`, as the
 * upstream answered them, before the output hooks. A hit answers in the upstream's place without calling it
 * (`X-Cache: HIT`, `cache_type` in the audit entry, no usage cost), as JSON or as a replayed stream, and goes
 * through the workflow's `onResponse` hooks (output guardrails, unwrapping) as the upstream's answer would.
 * `Cache-Control: no-cache` skips the lookup (the fresh answer is stored), `no-store` skips the cache entirely.
 * Identical misses in flight at once call the upstream once: the others wait for the first and are answered from
 * the cache.
 */
import { requestSlot, type RequestContext } from '../../src/pipeline/context.ts'
import { CONTINUE, definePlugin, type Decision } from '../../src/pipeline/types.ts'
import { cacheKey } from './cache-key.ts'
import { responseCacheManifest, type ResponseCacheConfig } from './manifest.ts'
import { jsonAnswer } from '../../src/pipeline/json-answer.ts'
import type { CachePolicy } from '../../src/protocols/api-shape.ts'
import { endpoint } from '../../src/protocols/endpoints.ts'

interface CacheState {
  key: string
  store: boolean
  hit: boolean
  /** Set when this request leads a group of identical requests; resolved when it completes. */
  release?: () => void
}

const stateSlot = requestSlot<CacheState>('response-cache')

/** Whose entries the request reads and fills, as the workflow's `scope` says. */
function ownerOf(ctx: RequestContext, scope: ResponseCacheConfig['scope']): string {
  if (scope === 'global') return 'global'
  if (scope === 'user_path') return `user_path:${ctx.userPath ?? ''}`
  return `key:${ctx.principal?.id ?? ''}`
}

export const responseCache = definePlugin({
  manifest: responseCacheManifest,
  create({ stores }) {
    const cache = stores.responseCache
    const inFlight = new Map<string, Promise<void>>()

    async function answerFromCache(ctx: RequestContext, policy: CachePolicy, key: string): Promise<Decision | undefined> {
      const hit = await cache.get(key)
      if (!hit) return undefined
      ctx.cacheType = 'exact'
      ctx.setState(stateSlot, { key, store: false, hit: true })
      const headers = { 'x-cache': 'HIT', 'x-request-id': ctx.requestId }
      if (!ctx.stream) return { kind: 'answer', response: jsonAnswer(hit.body, JSON.parse(hit.body), { headers: { ...headers, 'content-type': 'application/json' } }) }
      const replay = policy.replayStream
      if (!replay) return undefined
      return { kind: 'answer', response: new Response(replay(JSON.parse(hit.body), ctx.body), { headers: { ...headers, 'content-type': 'text/event-stream; charset=utf-8' } }) }
    }

    function waitFor(leader: Promise<void>, signal: AbortSignal, waitMs: number): Promise<void> {
      return new Promise((resolve) => {
        const timer = setTimeout(resolve, waitMs)
        const done = () => {
          clearTimeout(timer)
          resolve()
        }
        leader.then(done, done)
        signal.addEventListener('abort', done, { once: true })
      })
    }

    return {
      async before(ctx, config) {
        const policy = endpoint(ctx.endpoint).api.cache
        // A streamed request is cached only where the API can replay a stream.
        if (!policy || !ctx.target || (ctx.stream && !policy.replayStream)) return CONTINUE
        const directive = (ctx.headers.get('cache-control') ?? '').toLowerCase()
        if (directive.includes('no-store')) return CONTINUE
        const owner = ownerOf(ctx, config.scope)
        const key = cacheKey({ endpoint: ctx.endpoint, owner, workflowVersionId: ctx.workflowVersionId, selector: ctx.target.selector }, ctx.body, policy.deliveryFields)
        const lookup = !directive.includes('no-cache')
        if (lookup) {
          const hit = await answerFromCache(ctx, policy, key)
          if (hit) return hit
          const leader = config.coalesce ? inFlight.get(key) : undefined
          if (leader) {
            await waitFor(leader, ctx.clientSignal, config.coalesce_wait_ms)
            const late = await answerFromCache(ctx, policy, key)
            if (late) return late
          }
        }
        const current: CacheState = { key, store: true, hit: false }
        if (config.coalesce && lookup && !inFlight.has(key)) {
          inFlight.set(key, new Promise<void>((resolve) => (current.release = resolve)))
        }
        ctx.setState(stateSlot, current)
        return CONTINUE
      },
      onResponse(ctx, response) {
        const s = ctx.state(stateSlot)
        if (!s || s.hit) return response
        const headers = new Headers(response.headers)
        headers.set('x-cache', 'MISS')
        return new Response(response.body, { status: response.status, headers })
      },
      async onComplete(ctx, outcome, config) {
        const s = ctx.state(stateSlot)
        if (!s || s.hit) return
        try {
          if (s.store && outcome.status === 200 && !outcome.error && !outcome.clientAborted && outcome.routeAnswer) {
            const body = JSON.stringify(outcome.routeAnswer)
            if (body.length <= config.max_entry_bytes) await cache.set(s.key, { body, storedAt: Date.now() }, config.ttl_seconds * 1000)
          }
        } finally {
          if (s.release) {
            inFlight.delete(s.key)
            s.release()
          }
        }
      },
    }
  },
})

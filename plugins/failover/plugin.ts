/**
 * @module Failover (feature `failover`, replaces the single-target router). Tries the resolved target, retries
 * it on 429, 5xx, timeouts and connection errors with backoff (honouring Retry-After), then moves through the
 * fallbacks: the virtual model's other weighted targets, then the targets configured for the requested model or
 * selector. Streams fail over only before their first byte reaches the client: the first chunk is read before
 * the response is handed on. Every upstream call is an attempt in the audit entry.
 */
import { GatewayError } from '../../src/errors/gateway-error.ts'
import type { RequestContext } from '../../src/pipeline/context.ts'
import type { AttemptKind } from '../../src/pipeline/snapshots.ts'
import { definePlugin, type PluginDeps } from '../../src/pipeline/types.ts'
import { endpoint } from '../../src/protocols/endpoints.ts'
import { callTarget } from '../../src/providers/call-target.ts'
import type { ResolvedTarget, UpstreamResult } from '../../src/providers/types.ts'
import { upstreamFailures } from '../../src/providers/upstream-errors.ts'
import { isRedirect } from '../../src/providers/upstream-fetch.ts'
import { mayUseTarget } from '../../src/keys/model-access.ts'
import { CircuitBreaker } from './circuit-breaker.ts'
import { failoverManifest, type FailoverConfig } from './manifest.ts'
import { backoffMs, retryAfterMs } from './retry-delay.ts'
import { isEventStream } from '../../src/pipeline/sse.ts'

/**
 * The primary target first, then each distinct fallback that resolves and that the key may use (the same check
 * as the model-access plugin's): a weighted virtual model's other targets are reached through the name the client
 * asked for, a configured failover target through its own name.
 */
export function candidateTargets(ctx: RequestContext, config: FailoverConfig, deps: PluginDeps): ResolvedTarget[] {
  const primary = ctx.target!
  const allowed = ctx.principal?.allowedModels
  const out = [primary]
  const seen = new Set([primary.selector])
  const add = (selector: string, via: string | undefined) => {
    const r = deps.catalog.resolve(selector)
    if (r.ok && !seen.has(r.target.selector) && mayUseTarget(allowed, via, r.target)) {
      seen.add(r.target.selector)
      out.push(r.target)
    }
  }
  for (const alt of ctx.alternativeTargets) add(alt, ctx.requestedModel)
  for (const key of [ctx.requestedModel, primary.selector]) for (const selector of (key && config.targets[key]) || []) add(selector, selector)
  return out
}

/** Waits `ms`; false when the client went away first. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false)
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve(true)
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      resolve(false)
    }
    signal.addEventListener('abort', onAbort, { once: true })
  })
}

/** Reads a stream's first chunk so a failure before the first byte can still fail over. */
function withFirstChunk(result: UpstreamResult, target: ResolvedTarget): UpstreamResult | Promise<UpstreamResult> {
  if (result instanceof GatewayError || !result.body || !isEventStream(result)) return result
  return readFirstChunk(result, result.body, target)
}

async function readFirstChunk(response: Response, stream: ReadableStream<Uint8Array>, target: ResolvedTarget): Promise<UpstreamResult> {
  const reader = stream.getReader()
  let first: Awaited<ReturnType<typeof reader.read>>
  try {
    first = await reader.read()
  } catch (error) {
    // The upstream stream errors with a GatewayError (deadline, broken framing); anything else broke it off.
    return error instanceof GatewayError ? error : upstreamFailures.interrupted(target.providerName, String((error as Error)?.message ?? error))
  }
  let sentFirst = false
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!sentFirst) {
        sentFirst = true
        if (first.done) return controller.close()
        return controller.enqueue(first.value)
      }
      const next = await reader.read()
      if (next.done) controller.close()
      else controller.enqueue(next.value)
    },
    cancel: (reason) => reader.cancel(reason),
  })
  return new Response(body, { status: response.status, headers: response.headers })
}

/** Selectors a workflow's failover settings name (as written and resolved), worked out once per settings object. */
function namedTargets(config: FailoverConfig, deps: PluginDeps, cache: WeakMap<FailoverConfig, Set<string>>): Set<string> {
  let named = cache.get(config)
  if (!named) {
    named = new Set()
    for (const [key, targets] of Object.entries(config.targets)) {
      for (const name of [key, ...targets]) {
        named.add(name)
        const r = deps.catalog.resolve(name)
        if (r.ok && !r.aliasUsed) named.add(r.target.selector)
      }
    }
    cache.set(config, named)
  }
  return named
}

export const failover = definePlugin({
  manifest: failoverManifest,
  create(deps) {
    const breaker = new CircuitBreaker()
    deps.metrics?.watchCircuits(breaker)
    const named = new WeakMap<FailoverConfig, Set<string>>()
    /**
     * A target's circuit: only for one the operator named (listed, a virtual model's, a failover target), so a
     * client's made-up model names grow neither the breaker nor its metric's `target` label. Others have none.
     */
    const circuitOf = (target: ResolvedTarget, config: FailoverConfig): string | undefined =>
      deps.catalog.isConfigured(target) || namedTargets(config, deps, named).has(target.selector) ? target.selector : undefined

    return {
      async dispatch(ctx, config) {
        const policy = config.circuit_breaker
        const retryable = (error: GatewayError) => config.retry_on_status.includes(error.status)
        const primary = ctx.target!
        // A row that must stay on its target (governance.failover off) retries it, and goes nowhere else.
        const fallbacks = () => (endpoint(ctx.endpoint).governance.failover ? candidateTargets(ctx, config, deps) : [primary])
        let lastError: GatewayError | undefined
        // Fallbacks are only worked out once the primary failed: the happy path pays nothing for them.
        let targets: ResolvedTarget[] = [primary]
        for (let i = 0; i < targets.length; i++) {
          const target = targets[i]!
          const circuit = circuitOf(target, config)
          if (circuit !== undefined && !breaker.allows(circuit, policy)) {
            lastError ??= new GatewayError({
              status: 503,
              type: 'provider_error',
              provider: target.providerName,
              code: 'circuit_open',
              message: `Target '${target.selector}' is failing and is skipped for now (circuit open).`,
            })
            if (i === 0) targets = fallbacks()
            continue
          }
          for (let retry = 0; retry <= config.max_retries; retry++) {
            const kind: AttemptKind = retry > 0 ? 'retry' : target === primary ? 'primary' : 'failover'
            const answered = withFirstChunk(await callTarget(ctx, target, kind, deps), target)
            const result = answered instanceof Promise ? await answered : answered
            if (!(result instanceof GatewayError)) {
              if (circuit !== undefined) breaker.succeeded(circuit)
              if (target !== primary) ctx.failover = { target_model: target.selector }
              ctx.target = target
              return result
            }
            if (ctx.aborted || !retryable(result)) return result
            if (circuit !== undefined) breaker.failed(circuit, policy)
            lastError = result
            // A refused provider credential or a redirect will not change on the next try either: go to the next target.
            const upstreamStatus = ctx.attempts.at(-1)?.status_code ?? 0
            if (upstreamStatus === 401 || upstreamStatus === 403 || isRedirect(upstreamStatus) || retry === config.max_retries) break
            const wait = retryAfterMs(result) ?? backoffMs(retry, config.initial_backoff_ms, config.max_backoff_ms)
            if (wait > config.max_retry_after_ms) break
            if (circuit !== undefined && !breaker.allows(circuit, policy)) break
            if (!(await sleep(wait, ctx.clientSignal))) return upstreamFailures.clientClosed()
          }
          if (i === 0) targets = fallbacks()
        }
        return lastError ?? new GatewayError({ status: 503, type: 'provider_error', code: 'no_target', message: 'No target could take the request.' })
      },
    }
  },
})

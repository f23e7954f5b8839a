/**
 * @module Plain-object harness for plugin unit tests: a RequestContext and PluginDeps without any server.
 */
import type { z } from 'zod'
import { loadConfig } from '../../src/config/load.ts'
import { GatewayError } from '../../src/errors/gateway-error.ts'
import { LimitRegistry } from '../../src/limits/registry.ts'
import { unpricedCostModel } from '../../src/limits/cost.ts'
import { UsageService } from '../../src/usage/usage-service.ts'
import { AuthFailureLimiter } from '../../src/keys/failure-limiter.ts'
import { KeyDirectory } from '../../src/keys/key-directory.ts'
import { silentLogger } from '../../src/log/logger.ts'
import { ModelCatalog } from '../../src/models/catalog.ts'
import { RequestContext, type EndpointId } from '../../src/pipeline/context.ts'
import { bindHooks, captureOf, pluginSettings, type BoundHooks } from '../../src/pipeline/build.ts'
import type { Decision, GatewayPlugin, PluginDeps } from '../../src/pipeline/types.ts'
import { ProviderRegistry } from '../../src/providers/registry.ts'
import type { ProviderAdapter } from '../../src/providers/types.ts'
import { openStores } from '../../src/stores/open.ts'

export function makeContext(
  init: { endpoint?: EndpointId; body?: Record<string, unknown>; headers?: Record<string, string>; method?: string; path?: string } = {},
): RequestContext {
  const ctx = new RequestContext({
    endpoint: init.endpoint ?? 'chat.completions',
    method: init.method ?? 'POST',
    path: init.path ?? '/v1/chat/completions',
    headers: new Headers(init.headers ?? {}),
    clientIp: '127.0.0.1',
    log: silentLogger,
    clientSignal: new AbortController().signal,
  })
  if (init.body) {
    ctx.body = init.body
    ctx.originalBody = init.body
    if (typeof init.body.model === 'string') ctx.requestedModel = init.body.model
    ctx.stream = init.body.stream === true
  }
  return ctx
}

/** Plugin deps on real stores: the backend `openStores` picks for an in-memory database. */
export async function makeDeps(env: Record<string, string> = {}, adapters: Record<string, ProviderAdapter> = {}): Promise<PluginDeps> {
  const config = loadConfig({ env: { GATEWAY_DB_PATH: ':memory:', ...env }, cwd: '/nonexistent-dir-for-tests' })
  const providers = new ProviderRegistry(config, adapters)
  const stores = await openStores(config, silentLogger)
  const keys = new KeyDirectory(stores.keys, silentLogger)
  await keys.start()
  keys.stop()
  return {
    config,
    providers,
    catalog: new ModelCatalog(providers, config.virtual_models, silentLogger),
    stores,
    limits: new LimitRegistry(stores.limits),
    costModel: unpricedCostModel,
    usage: new UsageService(stores, {}, silentLogger),
    keys,
    authFailures: new AuthFailureLimiter(),
    log: silentLogger,
    audit: { record: () => {}, recordSuppressed: () => {} },
    onShutdown: () => {},
  }
}

/** Sets what a pipeline of these plugins captures for the request, as src/pipeline/run.ts does. */
export function applyCapture(ctx: RequestContext, plugins: readonly GatewayPlugin<any, any>[], deps: PluginDeps): void {
  ctx.capture = captureOf(plugins as readonly GatewayPlugin[], deps.config.logging)(ctx.endpoint)
}

/**
 * A plugin's hooks as one workflow's pipeline runs them: created with `deps`, bound to the settings `config`; a
 * refusal's error becomes `ctx.error`, as src/pipeline/run.ts records it.
 */
export function pluginHooks<Config extends z.ZodType, Settings>(
  plugin: GatewayPlugin<Config, Settings>,
  config: z.input<Config> | Record<string, never>,
  deps: PluginDeps,
): BoundHooks {
  const generic = plugin as unknown as GatewayPlugin
  const hooks = bindHooks(generic.create(deps), pluginSettings(generic, config))
  const before = hooks.before
  if (!before) return hooks
  const record = (ctx: RequestContext, decision: Decision) => {
    if (decision.kind === 'respond' && decision.error) ctx.error = decision.error
    return decision
  }
  return {
    ...hooks,
    before(ctx) {
      const result = before(ctx)
      return result instanceof Promise ? result.then((d) => record(ctx, d)) : record(ctx, result)
    },
  }
}

/** What a call that a test expects to succeed returned (an upstream answer, a translation); its GatewayError is thrown to fail the test. */
export function answered<T>(result: T | GatewayError): T {
  if (result instanceof GatewayError) throw result
  return result
}

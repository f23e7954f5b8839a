/**
 * @module Plain-object harness for plugin unit tests: a RequestContext and PluginDeps without any server.
 */
import { MemoryChanges } from '../../src/stores/memory/changes.ts'
import { Database } from 'bun:sqlite'
import type { z } from 'zod'
import { loadConfig } from '../../src/config/load.ts'
import { MemoryResponseCache } from '../../src/stores/memory/response-cache.ts'
import { MemoryCounters } from '../../src/stores/memory/counters.ts'
import { sqliteLimitStore } from '../../src/stores/sqlite/limits.ts'
import { LimitRegistry } from '../../src/limits/registry.ts'
import { unpricedCostModel } from '../../src/limits/cost.ts'
import { UsageService } from '../../src/usage/usage-service.ts'
import { sqliteUsageStore } from '../../src/stores/sqlite/usage.ts'
import { AuthFailureLimiter } from '../../src/keys/failure-limiter.ts'
import { KeyDirectory } from '../../src/keys/key-directory.ts'
import { silentLogger } from '../../src/log/logger.ts'
import { ModelCatalog } from '../../src/models/catalog.ts'
import { RequestContext, type EndpointId } from '../../src/pipeline/context.ts'
import { bindHooks, pluginSettings, type BoundHooks } from '../../src/pipeline/build.ts'
import type { GatewayPlugin, PluginDeps } from '../../src/pipeline/types.ts'
import { ProviderRegistry } from '../../src/providers/registry.ts'
import type { ProviderAdapter } from '../../src/providers/types.ts'
import { SqliteKeyStore } from '../../src/stores/sqlite/api-keys.ts'
import { applyMigrations } from '../../src/stores/sqlite/client.ts'
import { sqliteMigrations } from '../../src/stores/sqlite/migrations.ts'

export function makeContext(init: { endpoint?: EndpointId; body?: Record<string, unknown>; headers?: Record<string, string>; method?: string; path?: string } = {}): RequestContext {
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

export function makeDeps(env: Record<string, string> = {}, adapters: Record<string, ProviderAdapter> = {}): PluginDeps {
  const config = loadConfig({ env: { GATEWAY_DB_PATH: ':memory:', ...env }, cwd: '/nonexistent-dir-for-tests' })
  const providers = new ProviderRegistry(config, adapters)
  const sqlite = new Database(':memory:')
  applyMigrations(sqlite, sqliteMigrations)
  const keys = new KeyDirectory(new SqliteKeyStore(sqlite), silentLogger)
  // The SQLite load settles within a microtask, before any test awaits; no refresh timer is left running.
  void keys.start().then(() => keys.stop())
  return {
    config,
    providers,
    catalog: new ModelCatalog(providers, config.virtual_models, silentLogger),
    stores: { sqlite, responseCache: new MemoryResponseCache(config.cache.max_bytes), counters: new MemoryCounters(), changes: new MemoryChanges(), close: () => sqlite.close() },
    limits: new LimitRegistry(sqliteLimitStore(sqlite)),
    costModel: unpricedCostModel,
    usage: new UsageService(sqliteUsageStore(sqlite), {}, silentLogger),
    keys,
    authFailures: new AuthFailureLimiter(),
    log: silentLogger,
    audit: { record: () => {}, recordSuppressed: () => {} },
    onShutdown: () => {},
  }
}

/** A plugin's hooks as one workflow's pipeline runs them: created with `deps`, bound to the settings `config`. */
export function pluginHooks<Config extends z.ZodType, Settings>(plugin: GatewayPlugin<Config, Settings>, config: z.input<Config> | Record<string, never>, deps: PluginDeps): BoundHooks {
  const generic = plugin as unknown as GatewayPlugin
  return bindHooks(generic.create(deps), pluginSettings(generic, config))
}

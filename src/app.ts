/**
 * @module The composition root: config in, a ready Gateway out (providers, model catalog, stores, the pipeline
 * built from the plugin registry). No web framework here; src/http mounts it.
 */
import type { GatewayConfig } from './config/schema.ts'
import type { Logger } from './log/logger.ts'
import { ModelCatalog } from './models/catalog.ts'
import { buildPipeline, singlePipeline, type PipelineSelector, type WorkflowDefinition } from './pipeline/build.ts'
import type { RequestContext } from './pipeline/context.ts'
import { runPipeline } from './pipeline/run.ts'
import type { GatewayPlugin, PluginDeps } from './pipeline/types.ts'
import { ProviderRegistry } from './providers/registry.ts'
import type { ProviderAdapter } from './providers/types.ts'
import { applyMigrations, openSqlite, type Migration } from './stores/sqlite/client.ts'
import type { Stores } from './stores/types.ts'
import { localEndpoints } from './http/local-endpoints.ts'
import { masterKeyAdminAuthenticator, type AdminAuthenticator } from './http/admin/admin-auth.ts'
import { loggingSecurityEventRecorder, type SecurityEventRecorder } from './audit/security-events.ts'
import { sqliteMigrations } from './stores/sqlite/migrations.ts'
import { pluginRegistry, providerAdapters } from '../plugins/index.ts'

export interface GatewayOptions {
  config: GatewayConfig
  log: Logger
  plugins?: readonly GatewayPlugin[]
  adapters?: Readonly<Record<string, ProviderAdapter>>
  migrations?: readonly Migration[]
}

export const DEFAULT_WORKFLOW: WorkflowDefinition = {
  id: 'default',
  versionId: 'default-v1',
  features: { audit: true, budget: false, cache: false, failover: false, guardrails: false, usage: true },
  plugins: {},
}

export class Gateway {
  readonly config: GatewayConfig
  readonly log: Logger
  readonly providers: ProviderRegistry
  readonly catalog: ModelCatalog
  readonly stores: Stores
  readonly deps: PluginDeps
  selector: PipelineSelector
  adminAuth: AdminAuthenticator
  securityEvents: SecurityEventRecorder
  private readonly shutdownTasks: (() => Promise<void> | void)[] = []

  constructor(options: GatewayOptions) {
    this.config = options.config
    this.log = options.log
    this.providers = new ProviderRegistry(this.config, options.adapters ?? providerAdapters)
    this.catalog = new ModelCatalog(this.providers, this.config.virtual_models, this.log)
    const sqlite = openSqlite(this.config.database.path)
    applyMigrations(sqlite, options.migrations ?? sqliteMigrations)
    this.stores = { sqlite, close: () => sqlite.close() }
    this.deps = {
      config: this.config,
      providers: this.providers,
      catalog: this.catalog,
      stores: this.stores,
      log: this.log,
      onShutdown: (task) => this.shutdownTasks.push(task),
    }
    this.adminAuth = masterKeyAdminAuthenticator(this.config.master_key)
    this.securityEvents = loggingSecurityEventRecorder(this.log)
    this.selector = singlePipeline(buildPipeline(DEFAULT_WORKFLOW, options.plugins ?? pluginRegistry, this.deps))
  }

  /** Starts background work (model list refresh). Resolves when the first model lists are in. */
  start(): Promise<void> {
    return this.catalog.start(this.config.upstream.models_refresh_seconds)
  }

  handle(ctx: RequestContext): Promise<Response> {
    return runPipeline(ctx, this.selector, {
      localHandler: (c) => localEndpoints(c, this.catalog),
      keepaliveMs: this.config.upstream.keepalive_seconds * 1000,
    })
  }

  /** Runs the shutdown tasks (queue drains) and closes the stores; call after the HTTP server stopped. */
  async shutdown(): Promise<void> {
    this.catalog.stop()
    for (const task of this.shutdownTasks) {
      try {
        await task()
      } catch (err) {
        this.log.error({ err }, 'shutdown task failed')
      }
    }
    this.stores.close()
  }
}

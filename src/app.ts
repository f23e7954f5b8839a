/**
 * @module The composition root: config in, a ready Gateway out (providers, model catalog, stores, the pipeline
 * built from the plugin registry). No web framework here; src/http mounts it.
 */
import type { GatewayConfig } from './config/schema.ts'
import type { Logger } from './log/logger.ts'
import { ModelCatalog } from './models/catalog.ts'
import type { RequestContext } from './pipeline/context.ts'
import { completionsSettled, runPipeline } from './pipeline/run.ts'
import type { PluginChain, PluginDeps } from './pipeline/types.ts'
import { ProviderRegistry } from './providers/registry.ts'
import type { ProviderAdapter } from './providers/types.ts'
import type { Stores } from './stores/types.ts'
import { openStores } from './stores/open.ts'
import { LimitRegistry } from './limits/registry.ts'
import type { CostModel } from './limits/cost.ts'
import { UsageService } from './usage/usage-service.ts'
import { keyAdminAuthenticator, type AdminAuthenticator } from './http/admin/admin-auth.ts'
import { AuthFailureLimiter } from './keys/failure-limiter.ts'
import { KeyDirectory } from './keys/key-directory.ts'
import { auditSecurityEventRecorder, type SecurityEventRecorder } from './audit/security-events.ts'
import { createAuditLog, type AuditLog } from './audit/audit-log.ts'
import { Retention } from './stores/retention.ts'
import { WorkflowRegistry } from './workflows/registry.ts'
import { applyRequestLabels } from './labels/apply.ts'
import { pluginChain, providerAdapters } from '../plugins/index.ts'
import { GatewayMetrics } from './observability/metrics.ts'
import { RequestTelemetry } from './observability/request-telemetry.ts'
import type { Tracing } from './observability/tracing.ts'
import type { TracingSettings } from './observability/tracing-config.ts'
import type { PrimaryLink } from './workers/link.ts'
import { RequestsEnd } from './pipeline/context-abort.ts'
import { McpGateway } from './mcp/gateway.ts'
import { JwtVerifier } from './keys/jwt/verifier.ts'
import { DashboardSso } from './sso/dashboard-sso.ts'
import { FileService } from './files/file-service.ts'
import { UploadService } from './files/upload-service.ts'
import { BatchService } from './batches/batch-service.ts'
import { BatchExecutor } from './batches/executor.ts'
import { BatchBudget } from './batches/batch-budget.ts'
import { batchEndpointId, gatewayLineRunner } from './batches/line-runner.ts'
import { providerBatchApis } from './batches/providers/index.ts'
import type { BlobStore } from './stores/blobs/blob-store.ts'
import { openBlobStore } from './stores/blobs/open.ts'

export interface GatewayOptions {
  config: GatewayConfig
  log: Logger
  plugins?: PluginChain
  adapters?: Readonly<Record<string, ProviderAdapter>>
  costModel?: CostModel
  /** Script of the write thread; the compiled binary needs it given relative to its entry (src/main.ts). */
  writeThreadUrl?: string
  /** OpenTelemetry tracing (src/main.ts reads it from the OTEL_* variables); off when absent. */
  tracing?: TracingSettings
  /** Set in a worker of `GATEWAY_WORKERS`: the state shared with the other workers, through the primary. */
  primary?: PrimaryLink
}

/** The least time the audit and usage writers get at a stop, even when the in-flight requests took all of it. */
const WRITERS_MIN_DRAIN_MS = 2000

export class Gateway {
  readonly config: GatewayConfig
  readonly log: Logger
  readonly providers: ProviderRegistry
  readonly catalog: ModelCatalog
  readonly stores: Stores
  /** Budgets and rate limits. */
  readonly limits: LimitRegistry
  /** Prices and usage records. */
  readonly usage: UsageService
  /** Managed API keys (snapshot + store); shared by /v1 auth and the admin API. */
  readonly keys: KeyDirectory
  /** Audit suppression of authentication failures, and the throttle every credential check consults. */
  readonly authFailures: AuthFailureLimiter
  /** Identity tokens (JWT bearers) of the configured issuers, accepted on /v1 and /mcp (auth.jwt). */
  readonly identityTokens: JwtVerifier
  /** Dashboard sign-in through the OpenID provider (auth.oidc); undefined when not configured. */
  readonly sso?: DashboardSso
  /** Aborted when a graceful stop reaches its drain deadline: in-flight requests end with a 503 (see main.ts). */
  readonly endRequests = new RequestsEnd()
  readonly deps: PluginDeps
  /** The plugins and where each runs. */
  readonly plugins: PluginChain
  /** Active workflows and their pipelines; chooses the pipeline of each request. */
  readonly workflows: WorkflowRegistry
  adminAuth: AdminAuthenticator
  securityEvents: SecurityEventRecorder
  /** The audit log: the stores' reader and sink, conversation and stats reads, retention. */
  readonly auditLog: AuditLog
  /** Deletes Responses threads older than `responses.thread_retention_days`. */
  readonly threadRetention: Retention
  /** The Files API's files (records and bytes); batches read and write them through its `FileAccess`. */
  readonly files: FileService
  /** Deletes expired files (their bytes and records). */
  readonly fileExpiry: Retention
  /** The Uploads API: large files in parts, completed into files. */
  readonly uploads: UploadService
  /** Deletes uploads an hour after their creation, with any part still held. */
  readonly uploadExpiry: Retention
  /** The Batches API (/v1/batches). */
  readonly batches: BatchService
  /** Runs the lines of batches on this replica (src/batches/executor.ts). */
  readonly batchExecutor: BatchExecutor
  /** The MCP gateway (/mcp): upstream MCP servers, their tools for the keys that may see them. */
  readonly mcp: McpGateway
  /** Prometheus metrics (undefined when switched off). */
  readonly metrics?: GatewayMetrics
  readonly tracing?: Tracing
  /** What the request path reports to metrics, traces and the access log; undefined when all are off. */
  readonly telemetry?: RequestTelemetry
  private readonly shutdownTasks: (() => Promise<void> | void)[] = []
  /** When the stop must be done (set by `shutdown`). */
  private stopBy = Number.POSITIVE_INFINITY
  private readonly keysLoaded: Promise<void>

  /** Opens the stores (the backend the config names, migrated), then builds the gateway on them. */
  static async open(options: GatewayOptions): Promise<Gateway> {
    const blobs = await openBlobStore(options.config)
    return new Gateway(options, await openStores(options.config, options.log, { writeThreadUrl: options.writeThreadUrl, primary: options.primary }), blobs)
  }

  constructor(options: GatewayOptions, stores: Stores, blobs: BlobStore) {
    this.config = options.config
    this.log = options.log
    this.providers = new ProviderRegistry(this.config, options.adapters ?? providerAdapters)
    this.catalog = new ModelCatalog(this.providers, this.config.virtual_models, this.log)
    this.stores = stores
    this.identityTokens = new JwtVerifier(this.config.auth.jwt, this.log)
    this.authFailures = new AuthFailureLimiter({ throttle: { burst: this.config.auth.failure_burst, refillPerSecond: this.config.auth.failure_refill_per_second } })
    // The audit writer's counters are read when /metrics is scraped.
    this.metrics = this.config.metrics.enabled
      ? new GatewayMetrics(
          () => stores.auditSink.stats(),
          () => stores.usageSink.stats(),
        )
      : undefined
    if (this.metrics) stores.events?.attach(this.metrics.storeObserver)
    if (this.metrics && options.primary) this.metrics.joinGroup(options.primary.metrics)
    this.limits = new LimitRegistry(stores.limits, { changes: stores.changes, log: this.log })
    this.usage = new UsageService(stores, this.config.pricing, this.log)
    this.auditLog = createAuditLog(this.config, stores, this.log)
    this.threadRetention = new Retention(
      stores.responseThreads,
      {
        job: 'response-thread-retention',
        rows: 'Responses threads',
        retentionDays: this.config.responses.thread_retention_days,
        lease: stores.lease,
        // A thread's row holds its whole conversation; on SQLite the deletes run on the connection serving
        // requests: 100 rows of 200 KB take about 4 ms, of 20 KB about 1 ms.
        batchSize: 100,
      },
      this.log,
    )
    this.files = new FileService(stores.files, blobs, this.log)
    this.fileExpiry = new Retention(
      this.files.expiredFiles(),
      { job: 'file-expiry', rows: 'files', retentionDays: 0, ownExpiry: true, lease: stores.lease, intervalMs: 60_000, batchSize: 100 },
      this.log,
    )
    this.uploads = new UploadService(stores.uploads, this.files, this.log, {
      maxFileBytes: this.config.files.max_file_bytes,
      uploadTimeoutMs: this.config.files.upload_timeout_seconds * 1000,
    })
    this.uploadExpiry = new Retention(
      this.uploads.expiredUploads(),
      { job: 'upload-expiry', rows: 'uploads', retentionDays: 0, ownExpiry: true, lease: stores.lease, intervalMs: 60_000, batchSize: 100 },
      this.log,
    )
    this.keys = new KeyDirectory(stores.keys, this.log, { changes: stores.changes })
    // Loading starts here, not in start(): a request must never find the snapshot missing without cause.
    this.keysLoaded = this.keys.start()
    this.authFailures.startReporting(this.log)
    this.deps = {
      config: this.config,
      providers: this.providers,
      catalog: this.catalog,
      stores: this.stores,
      limits: this.limits,
      costModel: options.costModel ?? this.usage.prices,
      usage: this.usage,
      keys: this.keys,
      authFailures: this.authFailures,
      log: this.log,
      audit: this.auditLog.writer,
      metrics: this.metrics,
      onShutdown: (task) => this.shutdownTasks.push(task),
    }
    // Both writers drain at once, within what is left of the stop's deadline (`shutdown(stopBy)`), but at least
    // WRITERS_MIN_DRAIN_MS, so the entries of requests the deadline ended are stored too (a queue of 10,000 takes
    // well under a second); what they cannot store by then is spilled and stored at the next start.
    this.deps.onShutdown(async () => {
      const left = Math.max(WRITERS_MIN_DRAIN_MS, this.stopBy - Date.now())
      await Promise.all([this.usage.drain(left), this.auditLog.close(left)])
    })
    this.deps.onShutdown(() => this.threadRetention.stop())
    this.deps.onShutdown(() => this.fileExpiry.stop())
    this.deps.onShutdown(() => this.uploadExpiry.stop())
    this.adminAuth = keyAdminAuthenticator(this.config.master_key, this.keys, this.authFailures.throttle)
    this.securityEvents = auditSecurityEventRecorder(this.auditLog.writer, this.log)
    this.sso = DashboardSso.fromConfig(this.config.auth.oidc, { counters: stores.counters, securityEvents: this.securityEvents, authFailures: this.authFailures, log: this.log })
    // The OpenTelemetry SDK (about 20 MB resident) is loaded only when tracing is configured.
    this.tracing = options.tracing ? new (require('./observability/tracing.ts') as typeof import('./observability/tracing.ts')).Tracing(options.tracing, this.log) : undefined
    this.telemetry = this.requestTelemetry()
    this.plugins = options.plugins ?? pluginChain
    this.workflows = new WorkflowRegistry(stores.workflows, this.plugins, this.deps, this.config.features, this.log, stores.changes)
    this.mcp = new McpGateway({
      config: this.config,
      log: this.log,
      authFailures: this.authFailures,
      audit: this.auditLog.writer,
      limits: this.limits,
      counters: stores.counters,
      store: stores.mcp,
      changes: stores.changes,
      usage: this.usage,
    })
    this.deps.onShutdown(() => this.mcp.stop())
    const providerBatchApi = providerBatchApis(options.adapters ?? providerAdapters)
    const providerBatches = (providerName: string, endpointId: string) => {
      if (this.config.batches.gateway_run_all) return undefined
      const provider = this.providers.get(providerName)?.instance
      const api = provider && providerBatchApi(provider.type)
      return provider && api?.supports(endpointId) ? { provider, api } : undefined
    }
    const batchBudget = new BatchBudget({
      limits: this.limits,
      counters: stores.counters,
      catalog: this.catalog,
      costModel: this.deps.costModel,
      handsOver: (providerName, endpointId) => providerBatches(providerName, endpointId) !== undefined,
    })
    this.batchExecutor = new BatchExecutor({
      budget: batchBudget,
      store: stores.batches,
      lease: stores.lease,
      files: () => this.files,
      runLine: gatewayLineRunner({ keys: this.keys, run: (ctx) => this.runBatchLine(ctx), log: this.log, requestsEnd: this.endRequests }),
      providerBatches,
      concurrency: this.config.batches.concurrency,
      pollMs: this.config.batches.poll_seconds * 1000,
      replicaId: Bun.randomUUIDv7(),
      log: this.log.child({ component: 'batches' }),
    })
    this.batches = new BatchService({
      store: stores.batches,
      files: () => this.files,
      maxLines: this.config.batches.max_lines,
      budget: batchBudget,
      endpointIdOf: batchEndpointId,
      ready: (batchId) => this.batchExecutor.kick(batchId),
    })
    this.metrics?.watchSnapshots(() => this.snapshotStatuses())
  }

  /** Loads workflows (declared ones become new versions when they changed); call before serving. */
  async init(): Promise<void> {
    // Replicas starting together would each store the declared workflows and limits as new versions: one at a
    // time, under the lease; the later ones find them stored already.
    for (let attempt = 0; ; attempt++) {
      const done = await this.stores.lease.runExclusive('declared-config', async () => {
        await this.workflows.load(this.config.workflows)
        await this.limits.load({ budgets: this.config.budgets, rate_limits: this.config.rate_limits })
        return true
      })
      if (done) break
      if (attempt >= 600) throw new Error('another replica held the start-up lease for over a minute')
      await Bun.sleep(100)
    }
    await this.usage.loadPrices()
  }

  /** Starts background work (model list refresh). Resolves when the first model lists are in. */
  async start(): Promise<void> {
    await this.init()
    this.auditLog.start()
    this.threadRetention.start()
    this.fileExpiry.start()
    this.uploadExpiry.start()
    this.usage.startWriter()
    await this.mcp.start()
    await this.identityTokens.start()
    await Promise.all([this.catalog.start(this.config.upstream.models_refresh_seconds), this.keysLoaded])
    // After the keys are loaded: a line's credential is checked against them.
    this.batchExecutor.start()
  }

  private snapshotStatuses() {
    return [this.keys.snapshotStatus(), this.workflows.snapshotStatus(), this.limits.snapshotStatus(), this.usage.priceSnapshotStatus()]
  }

  /** The shared database's health and whether each snapshot is current, for /ready. */
  readiness() {
    const store = this.stores.health?.() ?? { backend: 'sqlite' as const, reachable: true }
    const snapshots = this.snapshotStatuses().map((s) => ({
      name: s.name,
      fresh: s.fresh,
      loaded_at: s.loadedAt ? new Date(s.loadedAt).toISOString() : null,
    }))
    const w = this.auditLog.writer.stats()
    const u = this.usage.writerStats()
    // Holding entries in memory (the disk refuses writes) or losing them is degraded: an operator must act.
    const audit = {
      state: w.state,
      // How far the writers are behind (saturated, or the database refusing writes): the oldest waiting row's age.
      lag_ms: w.lag_ms,
      queue_depth: w.queue_depth,
      spill_bytes: w.spill_bytes,
      held: w.held,
      held_bytes: w.held_bytes,
      held_max_bytes: w.held_max_bytes,
      lost: w.lost,
      spill_files: w.spill_files,
      usage_queued: u.queued,
      usage_held: u.held,
      usage_spilled: u.spilled,
      usage_lost: u.lost,
      usage_lag_ms: u.lag_ms,
    }
    const auditDegraded = w.state === 'holding' || w.state === 'losing' || u.state === 'holding' || u.losing
    return { degraded: !store.reachable || snapshots.some((s) => !s.fresh) || auditDegraded, store, snapshots, audit }
  }

  handle(ctx: RequestContext): Promise<Response> {
    applyRequestLabels(ctx, this.config.labels)
    return runPipeline(ctx, this.workflows, this.runOptions)
  }

  /** A batch line's request (src/batches/line-runner.ts): its labels are the batch's, set on the context. */
  private runBatchLine(ctx: RequestContext): Promise<Response> {
    return runPipeline(ctx, this.workflows, this.runOptions)
  }

  private get runOptions() {
    return {
      catalog: this.catalog,
      files: this.files,
      filesConfig: this.config.files,
      uploads: this.uploads,
      batches: this.batches,
      keepaliveMs: this.config.upstream.keepalive_seconds * 1000,
      telemetry: this.telemetry,
    }
  }

  private requestTelemetry(): RequestTelemetry | undefined {
    const { metrics, tracing, config } = this
    // The audit log already has a line per request; the access log is for when it is off (or asked for).
    const accessLog = config.logging.access_log ?? !config.features.audit
    const overheadHeader = config.metrics.overhead_header
    if (!metrics && !tracing && !accessLog && !overheadHeader) return undefined
    return new RequestTelemetry({
      metrics,
      tracing,
      accessLog: accessLog ? this.log.child({ log: 'access' }) : undefined,
      overheadHeader,
      isListedModel: (provider, model) => this.catalog.lists(provider, model),
    })
  }

  /**
   * Runs the shutdown tasks (queue drains) and closes the stores; call after the HTTP server stopped. `stopBy`:
   * when the whole stop must be done (epoch ms; by default the drain timeout from now): the writers drain until
   * then and spill the rest.
   */
  async shutdown(stopBy = Date.now() + this.config.server.drain_timeout_seconds * 1000): Promise<void> {
    this.stopBy = stopBy
    // Requests that ended just now may still wait for a token count (at most ~1 s) before their audit entry exists.
    // Lines running now finish (the drain deadline ends their requests); no new line starts.
    await this.batchExecutor.stop()
    await completionsSettled()
    this.catalog.stop()
    this.keys.stop()
    this.workflows.stop()
    this.limits.stop()
    this.usage.stopPrices()
    this.authFailures.stopReporting(this.log)
    for (const task of this.shutdownTasks) {
      try {
        await task()
      } catch (err) {
        this.log.error({ err }, 'shutdown task failed')
      }
    }
    this.metrics?.stop()
    try {
      await this.tracing?.shutdown()
    } catch (err) {
      this.log.warn({ err }, 'could not send the last spans')
    }
    await this.stores.close()
  }
}

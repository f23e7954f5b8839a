/**
 * @module The MCP gateway of one process, put together from the configuration and the gateway's shared parts
 * (the key authenticator, the audit writer, the limit definitions and counters): the catalogue of upstream
 * servers and their connections, visibility, sessions, the methods and the Streamable HTTP transport. The
 * composition root (src/app.ts) makes one; the HTTP shell (src/http/mcp.ts) hands it requests.
 */
import type { AuditRecorder } from '../audit/recorder.ts'
import type { GatewayConfig } from '../config/schema.ts'
import type { AuthFailureLimiter } from '../keys/failure-limiter.ts'
import type { LimitRegistry } from '../limits/registry.ts'
import type { Logger } from '../log/logger.ts'
import type { Changes } from '../stores/changes.ts'
import type { Counters, McpStore } from '../stores/types.ts'
import { ToolCallLimits } from './call-limits.ts'
import type { UsageSink } from './call-usage.ts'
import { McpCatalog, type ServerEntry } from './catalog.ts'
import type { McpServerConfig, VisibilityRule } from './config.ts'
import { McpListings } from './listings.ts'
import { McpMethods } from './methods.ts'
import { NotificationStreams } from './notifications.ts'
import { argumentRedactor, type ArgumentRedactor } from './redact.ts'
import { McpSecrets } from './secrets.ts'
import { McpSessions } from './session.ts'
import { McpStoredDefinitions, type StoredDefinitions } from './stored-definitions.ts'
import { McpTransport, type McpHttpRequest } from './transport.ts'
import { ToolVisibility } from './visibility.ts'
import { UpstreamCredentials } from './oauth/credentials.ts'
import { OwnerConnections } from './oauth/owner-connections.ts'
import { CALLBACK_PATH, UpstreamAuthorization } from './oauth/authorization.ts'
import { connectToolFor } from './methods.ts'
import { publicOrigin } from './resource-metadata.ts'
import { isStdioServer } from './config.ts'
import type { RuleWithOrigin } from './admin-views.ts'

export interface McpGatewayDeps {
  config: GatewayConfig
  log: Logger
  authFailures: AuthFailureLimiter
  audit: AuditRecorder
  limits: LimitRegistry
  counters: Counters
  store: McpStore
  changes?: Changes
  /** Priced tool calls are recorded here (the usage service's sink). */
  usage?: UsageSink
}

export class McpGateway {
  readonly catalog: McpCatalog
  readonly secrets: McpSecrets
  /** Servers and rules added through the admin API. */
  readonly stored: McpStoredDefinitions
  /** Upstream OAuth credentials (per-user servers). */
  readonly credentials: UpstreamCredentials
  readonly owners: OwnerConnections
  readonly authorization: UpstreamAuthorization
  /** The origin of the latest request, for redirect URLs when `mcp.public_url` is not set. */
  private origin = 'http://localhost'
  private readonly listings: McpListings
  private readonly notifications: NotificationStreams
  private readonly transport: McpTransport
  private visibility: ToolVisibility
  private configRules: readonly VisibilityRule[]
  private storedRules: readonly VisibilityRule[] = []
  private readonly redactors = new Map<string, ArgumentRedactor>()
  private readonly defaultRedactor: ArgumentRedactor
  private readonly log: Logger

  constructor(private readonly deps: McpGatewayDeps) {
    const { config } = deps
    const mcp = config.mcp
    this.log = deps.log.child({ component: 'mcp' })
    this.secrets = McpSecrets.from(config)
    this.catalog = new McpCatalog({ log: this.log, settings: mcp, oauthTools: (server) => [connectToolFor(server)] })
    this.credentials = new UpstreamCredentials(deps.store, this.secrets)
    this.owners = new OwnerConnections(this.catalog, this.credentials, () => `${this.origin}${CALLBACK_PATH}`)
    this.authorization = new UpstreamAuthorization({
      secrets: this.secrets,
      credentials: this.credentials,
      serverConfig: (name) => {
        const config = this.catalog.get(name)?.config
        return config && !isStdioServer(config) ? config : undefined
      },
      // A fresh connection with the new tokens, started now so the server's lists are there for the next tools/list.
      connected: (server, owner) =>
        void this.owners.closeOwner(server, owner).then(() => {
          const entry = this.catalog.get(server)
          if (entry) return this.owners.get(entry, owner)
        }),
      log: this.log,
    })
    this.listings = new McpListings(this.catalog)
    this.notifications = new NotificationStreams(this.listings, config.upstream.keepalive_seconds * 1000, mcp.max_notification_streams)
    this.configRules = mcp.visibility
    this.visibility = this.buildVisibility()
    this.defaultRedactor = argumentRedactor(mcp.redact_arguments, mcp.audit_max_argument_bytes)
    const sessions = new McpSessions(this.secrets, deps.counters, mcp.session_ttl_seconds)
    const methods = new McpMethods({
      catalog: this.catalog,
      listings: this.listings,
      limits: new ToolCallLimits(deps.limits, deps.counters, config.features.budget),
      redactArguments: (entry) => this.redactorFor(entry),
      owners: this.owners,
      authorization: this.authorization,
      usage: config.features.usage ? deps.usage : undefined,
    })
    this.transport = new McpTransport({
      config: mcp,
      capture: { bodies: config.logging.log_bodies, headers: config.logging.log_headers },
      auditEnabled: config.features.audit,
      authFailures: deps.authFailures,
      requireKeyUserPath: config.auth.require_key_user_path,
      audit: deps.audit,
      sessions,
      methods,
      catalog: this.catalog,
      visibility: () => this.visibility,
      notifications: this.notifications,
      log: this.log,
      bodyTimeoutSeconds: config.server.body_timeout_seconds,
    })
    this.stored = new McpStoredDefinitions(deps.store, this.secrets, new Set(Object.keys(mcp.servers)), this.log, deps.changes, (d) => this.applyStored(d))
    this.catalog.onChange(() => {
      this.visibility = this.buildVisibility()
      this.redactors.clear()
      this.notifications.changed()
    })
  }

  /** Connects to the configured servers (in the background: a server that is down does not hold up start-up). */
  async start(): Promise<void> {
    if (this.secrets.source === 'ephemeral' && Object.keys(this.deps.config.mcp.servers).length > 0) {
      this.log.warn('Neither MCP_TOKEN_ENCRYPTION_KEY nor GATEWAY_MASTER_KEY is set: MCP sessions end when this process stops and are not valid on other replicas.')
    }
    // Configured servers start even when the stored ones cannot be read yet; the snapshot adds those when it loads.
    if (!(await this.stored.start())) await this.catalog.apply(this.servers({ servers: new Map(), rules: [] }))
  }

  private applyStored(definitions: StoredDefinitions): void {
    this.setStoredRules(definitions.rules.map((r) => r.rule))
    void this.catalog.apply(this.servers(definitions))
  }

  private servers(definitions: StoredDefinitions): Record<string, { config: McpServerConfig; source: 'config' | 'admin' }> {
    const out: Record<string, { config: McpServerConfig; source: 'config' | 'admin' }> = {}
    for (const [name, config] of Object.entries(this.deps.config.mcp.servers)) out[name] = { config, source: 'config' }
    for (const [name, { config }] of definitions.servers) out[name] ??= { config, source: 'admin' }
    return out
  }

  handle(input: McpHttpRequest): Promise<Response> {
    this.origin = publicOrigin(this.deps.config.mcp, input.request)
    return this.transport.handle(input)
  }

  /** GET /mcp/oauth/authorize and /mcp/oauth/callback: a caller connecting its account at a per-user server. */
  oauthPage(request: Request, page: 'authorize' | 'callback'): Promise<Response> {
    const origin = publicOrigin(this.deps.config.mcp, request)
    const url = new URL(request.url)
    return page === 'authorize' ? this.authorization.start(origin, url.searchParams.get('ticket')) : this.authorization.callback(origin, url)
  }

  /** Deletes a stored upstream credential and closes its connection here (other replicas notice within seconds). */
  async revokeCredential(id: string) {
    const deleted = await this.credentials.delete(id)
    if (deleted && deleted.ownerKind !== 'client') await this.owners.closeOwner(deleted.server, { kind: deleted.ownerKind, id: deleted.ownerId, userPath: deleted.userPath })
    return deleted
  }

  /** Every visibility rule in force: the configuration's, then those added through the admin API. */
  rules(): RuleWithOrigin[] {
    return [
      ...this.configRules.map((rule) => ({ id: null, source: 'config' as const, rule, created_at: null })),
      ...this.stored.current.rules.map((r) => ({ id: r.id, source: 'admin' as const, rule: r.rule, created_at: r.created_at })),
    ]
  }

  /** Visibility rules stored through the admin API, on top of the configured ones. */
  setStoredRules(rules: readonly VisibilityRule[]): void {
    // The snapshot reapplies on every reconcile: an unchanged set keeps the views (and their memoised decisions).
    if (JSON.stringify(rules) === JSON.stringify(this.storedRules)) return
    this.storedRules = rules
    this.visibility = this.buildVisibility()
    this.notifications.changed()
  }

  async stop(): Promise<void> {
    this.stored.stop()
    this.notifications.closeAll()
    await this.owners.closeAll()
    await this.catalog.stop()
  }

  private buildVisibility(): ToolVisibility {
    return new ToolVisibility([...this.configRules, ...this.storedRules], (server) => this.serverConfig(server)?.default_tool_visibility ?? 'visible')
  }

  private serverConfig(name: string): McpServerConfig | undefined {
    return this.catalog.get(name)?.config
  }

  private redactorFor(entry: ServerEntry | undefined): ArgumentRedactor {
    if (!entry || entry.config.redact_arguments.length === 0) return this.defaultRedactor
    let redactor = this.redactors.get(entry.name)
    if (!redactor) {
      const mcp = this.deps.config.mcp
      redactor = argumentRedactor([...mcp.redact_arguments, ...entry.config.redact_arguments], mcp.audit_max_argument_bytes)
      this.redactors.set(entry.name, redactor)
    }
    return redactor
  }
}

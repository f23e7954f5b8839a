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
import type { Counters } from '../stores/types.ts'
import { ToolCallLimits } from './call-limits.ts'
import { McpCatalog, type ServerEntry } from './catalog.ts'
import type { McpServerConfig, VisibilityRule } from './config.ts'
import { McpListings } from './listings.ts'
import { McpMethods } from './methods.ts'
import { NotificationStreams } from './notifications.ts'
import { argumentRedactor, type ArgumentRedactor } from './redact.ts'
import { McpSecrets } from './secrets.ts'
import { McpSessions } from './session.ts'
import { McpTransport, type McpHttpRequest } from './transport.ts'
import { ToolVisibility } from './visibility.ts'

export interface McpGatewayDeps {
  config: GatewayConfig
  log: Logger
  authFailures: AuthFailureLimiter
  audit: AuditRecorder
  limits: LimitRegistry
  counters: Counters
}

export class McpGateway {
  readonly catalog: McpCatalog
  readonly secrets: McpSecrets
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
    this.catalog = new McpCatalog({ log: this.log, settings: mcp })
    this.listings = new McpListings(this.catalog)
    this.notifications = new NotificationStreams(this.listings, config.upstream.keepalive_seconds * 1000, mcp.max_notification_streams)
    this.configRules = mcp.visibility
    this.visibility = this.buildVisibility()
    this.defaultRedactor = argumentRedactor(mcp.redact_arguments, mcp.audit_max_argument_bytes)
    const sessions = new McpSessions(this.secrets, deps.counters, mcp.session_ttl_seconds)
    const methods = new McpMethods(this.catalog, this.listings, new ToolCallLimits(deps.limits, deps.counters, config.features.budget), (entry) => this.redactorFor(entry))
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
    await this.catalog.apply(Object.fromEntries(Object.entries(this.deps.config.mcp.servers).map(([name, config]) => [name, { config, source: 'config' as const }])))
  }

  handle(input: McpHttpRequest): Promise<Response> {
    return this.transport.handle(input)
  }

  /** Visibility rules stored through the admin API, on top of the configured ones. */
  setStoredRules(rules: readonly VisibilityRule[]): void {
    this.storedRules = rules
    this.visibility = this.buildVisibility()
    this.notifications.changed()
  }

  async stop(): Promise<void> {
    this.notifications.closeAll()
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

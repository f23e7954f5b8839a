/**
 * @module MCP servers and visibility rules added through the admin API: validated by the same schemas as YAML,
 * stored (a server's configuration sealed, since its headers and environment hold upstream secrets), and kept in
 * memory as a snapshot that every replica reloads when the change feed announces `mcp`. Servers of the
 * configuration file cannot be replaced or removed here: their name is taken.
 */
import { GatewayError, gatewayErrors } from '../errors/gateway-error.ts'
import type { Logger } from '../log/logger.ts'
import type { Changes } from '../stores/changes.ts'
import { Snapshot } from '../stores/snapshot.ts'
import type { McpStore } from '../stores/types.ts'
import { mcpServerNameSchema, mcpServerSchema, visibilityRuleSchema, type McpServerConfig, type VisibilityRule } from './config.ts'
import type { McpSecrets } from './secrets.ts'

export interface StoredRuleView {
  id: string
  rule: VisibilityRule
  created_at: string
}

export interface StoredDefinitions {
  servers: Map<string, { config: McpServerConfig; createdAt: string; updatedAt: string }>
  rules: StoredRuleView[]
}

const serverBinding = (name: string) => `mcp-server|${name}`

/** What a stored rule that no longer validates becomes: a deny of every tool, for everyone (fails closed). */
export const UNREADABLE_RULE: VisibilityRule = Object.freeze({ name: 'unreadable stored rule: hides every tool', allow: [], deny: ['*'] })

export class McpStoredDefinitions {
  current: StoredDefinitions = { servers: new Map(), rules: [] }
  private readonly snapshot: Snapshot<StoredDefinitions>

  constructor(
    private readonly store: McpStore,
    private readonly secrets: McpSecrets,
    private readonly configured: ReadonlySet<string>,
    private readonly log: Logger,
    changes: Changes | undefined,
    apply: (definitions: StoredDefinitions) => void,
  ) {
    this.snapshot = new Snapshot({
      name: 'mcp',
      load: () => this.load(),
      apply: (loaded) => {
        this.current = loaded
        apply(loaded)
      },
      changes,
      topic: 'mcp',
      log,
    })
  }

  start(): Promise<boolean> {
    return this.snapshot.start()
  }

  stop(): void {
    this.snapshot.stop()
  }

  status() {
    return this.snapshot.status()
  }

  /** Validates and stores a server; `replace` for an existing stored one. Throws the 400/404/409 GatewayError. */
  async putServer(name: string, raw: unknown, mode: 'create' | 'replace'): Promise<McpServerConfig> {
    const parsedName = mcpServerNameSchema.safeParse(name)
    if (!parsedName.success) throw gatewayErrors.invalidRequest(`name: ${parsedName.error.issues[0]!.message}`, 'name', 'invalid_mcp_server')
    if (this.configured.has(name)) {
      throw new GatewayError({
        status: 409,
        type: 'invalid_request_error',
        code: 'mcp_server_configured',
        param: 'name',
        message: `The MCP server '${name}' is defined in the configuration file; change it there.`,
      })
    }
    const parsed = mcpServerSchema.safeParse(raw)
    if (!parsed.success) throw gatewayErrors.fromZod(parsed.error, { code: 'invalid_mcp_server', subject: 'body' })
    const existing = this.current.servers.get(name)
    if (mode === 'create' && existing)
      throw new GatewayError({ status: 409, type: 'invalid_request_error', code: 'mcp_server_exists', param: 'name', message: `An MCP server named '${name}' exists already.` })
    if (mode === 'replace' && !existing) throw notFound(name)
    const now = new Date().toISOString()
    await this.store.putServer({ name, sealedConfig: this.secrets.seal(JSON.stringify(parsed.data), serverBinding(name)), createdAt: existing?.createdAt ?? now, updatedAt: now })
    await this.snapshot.reload(true)
    return parsed.data
  }

  async deleteServer(name: string): Promise<McpServerConfig> {
    if (this.configured.has(name)) {
      throw new GatewayError({
        status: 409,
        type: 'invalid_request_error',
        code: 'mcp_server_configured',
        param: 'name',
        message: `The MCP server '${name}' is defined in the configuration file; remove it there.`,
      })
    }
    const existing = this.current.servers.get(name)
    if (!existing || !(await this.store.deleteServer(name))) throw notFound(name)
    await this.snapshot.reload(true)
    return existing.config
  }

  async addRule(raw: unknown): Promise<StoredRuleView> {
    const parsed = visibilityRuleSchema.safeParse(raw)
    if (!parsed.success) throw gatewayErrors.fromZod(parsed.error, { code: 'invalid_visibility_rule', subject: 'body' })
    const view = { id: `mcpr_${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}`, rule: parsed.data, created_at: new Date().toISOString() }
    await this.store.putRule({ id: view.id, rule: view.rule, createdAt: view.created_at })
    await this.snapshot.reload(true)
    return view
  }

  async deleteRule(id: string): Promise<StoredRuleView> {
    const existing = this.current.rules.find((r) => r.id === id)
    if (!existing || !(await this.store.deleteRule(id))) {
      throw new GatewayError({ status: 404, type: 'not_found_error', code: 'visibility_rule_not_found', param: 'id', message: `No stored visibility rule with id '${id}'.` })
    }
    await this.snapshot.reload(true)
    return existing
  }

  private async load(): Promise<StoredDefinitions> {
    const servers: StoredDefinitions['servers'] = new Map()
    for (const row of await this.store.servers()) {
      if (this.configured.has(row.name)) continue
      const text = this.secrets.open(row.sealedConfig, serverBinding(row.name))
      const parsed = text === undefined ? undefined : mcpServerSchema.safeParse(JSON.parse(text))
      if (!parsed?.success) {
        this.log.error({ mcp_server: row.name }, 'a stored MCP server cannot be read (sealed with another MCP_TOKEN_ENCRYPTION_KEY, or no longer valid); it is skipped')
        continue
      }
      servers.set(row.name, { config: parsed.data, createdAt: row.createdAt, updatedAt: row.updatedAt })
    }
    const rules: StoredRuleView[] = []
    for (const row of await this.store.rules()) {
      const parsed = visibilityRuleSchema.safeParse(row.rule)
      if (parsed.success) rules.push({ id: row.id, rule: parsed.data, created_at: row.createdAt })
      else {
        // Skipping it would widen access when it was a deny; whom it was for is unreadable too, so it hides every
        // tool from everyone until an admin deletes or replaces it.
        this.log.error({ rule_id: row.id }, 'a stored MCP visibility rule is no longer valid; every MCP tool is hidden until it is deleted')
        rules.push({ id: row.id, rule: UNREADABLE_RULE, created_at: row.createdAt })
      }
    }
    return { servers, rules }
  }
}

const notFound = (name: string) =>
  new GatewayError({ status: 404, type: 'not_found_error', code: 'mcp_server_not_found', param: 'name', message: `No MCP server named '${name}' was added through the admin API.` })

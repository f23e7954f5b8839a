/**
 * @module The upstream servers this replica serves and what each offers. A server with static credentials has one
 * `UpstreamConnection` (started at once, kept connected, shared by every caller); a server that wants each
 * caller's own OAuth token has one connection per credential owner, made when that owner first calls
 * (./oauth/owner-connections.ts), and its lists come from whichever owner's connection fetched them last. The
 * lists are indexed by name for lookups, and `version` moves whenever any server's lists change, so the listings
 * built from them (./listings.ts) are rebuilt and open notification streams are told (./notifications.ts).
 * Servers can be replaced at run time (admin API changes): a changed or removed server's connections are
 * stopped, a new one's started.
 */
import type { Logger } from '../log/logger.ts'
import type { McpConfig, McpServerConfig } from './config.ts'
import { isStdioServer } from './config.ts'
import { UpstreamConnection, type UpstreamConnectionOptions, type UpstreamLists, type UpstreamStatus } from './upstream/connection.ts'

export interface ServerEntry {
  name: string
  config: McpServerConfig
  /** `config` (YAML) or `admin` (stored through the admin API). */
  source: 'config' | 'admin'
  /** The shared connection; undefined for a server with per-caller OAuth credentials. */
  connection: UpstreamConnection | undefined
  oauth: boolean
  lists: UpstreamLists
  capabilities: Record<string, unknown> | undefined
  /** Tool, prompt and resource entries by their names and URIs on the server. */
  tools: Map<string, Record<string, unknown>>
  toolNames: string[]
  prompts: Map<string, Record<string, unknown>>
  resources: Map<string, Record<string, unknown>>
}

export interface CatalogOptions {
  log: Logger
  settings: Pick<McpConfig, 'call_timeout_seconds' | 'max_response_bytes' | 'health_interval_seconds' | 'refresh_seconds'>
  /** Tools a server with per-caller credentials offers besides its own (the one that tells a caller how to connect). */
  oauthTools?: (server: string) => Record<string, unknown>[]
}

const EMPTY_LISTS: UpstreamLists = Object.freeze({ tools: [], prompts: [], resources: [], resourceTemplates: [] })

export class McpCatalog {
  private readonly entries = new Map<string, ServerEntry>()
  private readonly listeners = new Set<() => void>()
  private readonly stopListeners = new Set<(server: string) => Promise<void>>()
  /** Moves on every change of any server's lists or of the set of servers. */
  version = 0

  constructor(private readonly options: CatalogOptions) {}

  /** Applies a new set of servers: unchanged ones keep their connection; the rest are stopped or started. */
  async apply(servers: Record<string, { config: McpServerConfig; source: 'config' | 'admin' }>): Promise<void> {
    const stopping: Promise<void>[] = []
    for (const [name, entry] of this.entries) {
      const next = servers[name]
      if (next && JSON.stringify(next.config) === JSON.stringify(entry.config)) {
        entry.source = next.source
        continue
      }
      this.entries.delete(name)
      if (entry.connection) stopping.push(entry.connection.stop())
      for (const listener of this.stopListeners) stopping.push(listener(name))
    }
    for (const [name, { config, source }] of Object.entries(servers)) {
      if (this.entries.has(name)) continue
      const oauth = !isStdioServer(config) && config.oauth !== undefined
      const entry: ServerEntry = {
        name,
        config,
        source,
        connection: undefined,
        oauth,
        lists: EMPTY_LISTS,
        capabilities: undefined,
        tools: new Map(),
        toolNames: [],
        prompts: new Map(),
        resources: new Map(),
      }
      this.entries.set(name, entry)
      if (oauth) this.setLists(entry, EMPTY_LISTS, undefined)
      else {
        const connection = this.connect(name, config, (lists, capabilities) => this.setLists(entry, lists, capabilities))
        entry.connection = connection
        connection.start()
      }
    }
    this.changed()
    await Promise.all(stopping)
  }

  /** A connection to one server (shared, or one credential owner's), reporting its lists to `onLists`. */
  connect(
    name: string,
    config: McpServerConfig,
    onLists: (lists: UpstreamLists, capabilities: Record<string, unknown> | undefined) => void,
    extra: Partial<UpstreamConnectionOptions> = {},
  ): UpstreamConnection {
    const connection: UpstreamConnection = new UpstreamConnection(name, config, {
      log: this.options.log,
      callTimeoutMs: (config.timeout_seconds ?? this.options.settings.call_timeout_seconds) * 1000,
      maxResponseBytes: config.max_response_bytes ?? this.options.settings.max_response_bytes,
      healthIntervalMs: this.options.settings.health_interval_seconds * 1000,
      refreshMs: this.options.settings.refresh_seconds * 1000,
      onListsChanged: () => onLists(connection.lists, connection.serverCapabilities()),
      ...extra,
    })
    return connection
  }

  /** Lists fetched by one of a per-caller server's owner connections. */
  ownerLists(name: string, lists: UpstreamLists, capabilities: Record<string, unknown> | undefined): void {
    const entry = this.entries.get(name)
    if (entry?.oauth) this.setLists(entry, lists, capabilities)
  }

  /** Called with a server's name when it is removed or replaced (its owner connections are stopped). */
  onServerStopped(listener: (server: string) => Promise<void>): void {
    this.stopListeners.add(listener)
  }

  get(name: string): ServerEntry | undefined {
    return this.entries.get(name)
  }

  all(): IterableIterator<ServerEntry> {
    return this.entries.values()
  }

  names(): string[] {
    return [...this.entries.keys()]
  }

  status(name: string): UpstreamStatus | undefined {
    return this.entries.get(name)?.connection?.status()
  }

  /** Called on every change; returns the function that stops listening. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** Resolves when every shared connection has been tried once (connected or failed); for start-up and tests. */
  async settled(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs
    while (Date.now() < deadline && [...this.entries.values()].some((e) => e.connection?.status().state === 'connecting')) await Bun.sleep(20)
  }

  async stop(): Promise<void> {
    const entries = [...this.entries.values()]
    this.entries.clear()
    await Promise.all(entries.map((e) => e.connection?.stop()))
  }

  private setLists(entry: ServerEntry, lists: UpstreamLists, capabilities: Record<string, unknown> | undefined): void {
    if (this.entries.get(entry.name) !== entry) return
    entry.lists = lists
    entry.capabilities = capabilities
    const tools = entry.oauth ? [...(this.options.oauthTools?.(entry.name) ?? []), ...lists.tools] : lists.tools
    entry.tools = byKey(tools, 'name')
    entry.toolNames = [...entry.tools.keys()]
    entry.prompts = byKey(lists.prompts, 'name')
    entry.resources = byKey(lists.resources, 'uri')
    this.changed()
  }

  private changed(): void {
    this.version++
    for (const listener of this.listeners) listener()
  }
}

function byKey(items: Record<string, unknown>[], key: string): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>()
  for (const item of items) if (typeof item[key] === 'string' && !out.has(item[key] as string)) out.set(item[key] as string, item)
  return out
}

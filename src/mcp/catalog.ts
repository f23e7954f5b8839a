/**
 * @module The upstream servers this replica serves and what each offers: one `UpstreamConnection` per server
 * (started at once, kept connected), their lists by name for lookups, and a `version` that moves whenever any
 * server's lists change, so the listings built from them (./listings.ts) are rebuilt and open notification
 * streams are told (./notifications.ts). Servers can be replaced at run time (admin API changes): a changed or
 * removed server's connection is stopped, a new one started.
 */
import type { Logger } from '../log/logger.ts'
import type { McpConfig, McpServerConfig } from './config.ts'
import { UpstreamConnection, type UpstreamStatus } from './upstream/connection.ts'

export interface ServerEntry {
  name: string
  config: McpServerConfig
  /** `config` (YAML) or `admin` (stored through the admin API). */
  source: 'config' | 'admin'
  connection: UpstreamConnection
  /** Tool, prompt and resource entries by their names and URIs on the server. */
  tools: Map<string, Record<string, unknown>>
  toolNames: string[]
  prompts: Map<string, Record<string, unknown>>
  resources: Map<string, Record<string, unknown>>
}

export interface CatalogOptions {
  log: Logger
  settings: Pick<McpConfig, 'call_timeout_seconds' | 'max_response_bytes' | 'health_interval_seconds' | 'refresh_seconds'>
}

export class McpCatalog {
  private readonly entries = new Map<string, ServerEntry>()
  private readonly listeners = new Set<() => void>()
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
      stopping.push(entry.connection.stop())
    }
    for (const [name, { config, source }] of Object.entries(servers)) {
      if (this.entries.has(name)) continue
      const entry: ServerEntry = { name, config, source, connection: undefined as never, tools: new Map(), toolNames: [], prompts: new Map(), resources: new Map() }
      entry.connection = new UpstreamConnection(name, config, {
        log: this.options.log,
        callTimeoutMs: (config.timeout_seconds ?? this.options.settings.call_timeout_seconds) * 1000,
        maxResponseBytes: config.max_response_bytes ?? this.options.settings.max_response_bytes,
        healthIntervalMs: this.options.settings.health_interval_seconds * 1000,
        refreshMs: this.options.settings.refresh_seconds * 1000,
        onListsChanged: () => this.reindex(entry),
      })
      this.entries.set(name, entry)
      entry.connection.start()
    }
    this.changed()
    await Promise.all(stopping)
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

  statuses(): Record<string, UpstreamStatus> {
    return Object.fromEntries([...this.entries].map(([name, e]) => [name, e.connection.status()]))
  }

  /** Called on every change; returns the function that stops listening. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** Resolves when every server has been tried once (connected or failed); for start-up and tests. */
  async settled(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs
    while (Date.now() < deadline && [...this.entries.values()].some((e) => e.connection.status().state === 'connecting')) await Bun.sleep(20)
  }

  async stop(): Promise<void> {
    const entries = [...this.entries.values()]
    this.entries.clear()
    await Promise.all(entries.map((e) => e.connection.stop()))
  }

  private reindex(entry: ServerEntry): void {
    if (this.entries.get(entry.name) !== entry) return
    const lists = entry.connection.lists
    entry.tools = byKey(lists.tools, 'name')
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
  for (const item of items) if (typeof item[key] === 'string') out.set(item[key] as string, item)
  return out
}

/**
 * @module Store interfaces the plugins see. One implementation per backend, with the same file names in each
 * backend folder (sqlite now; postgres and redis for several replicas).
 */
import type { Database } from 'bun:sqlite'
import type { AuditRow } from '../audit/record.ts'
import type { AuditConversation, AuditLogEntry, AuditLogPage, AuditLogQuery, AuditStats, AuditStatsQuery } from '../audit/entry.ts'
import type { Budget, RateLimit } from '../limits/definitions.ts'
import type { ModelPrice } from '../usage/pricing.ts'
import type { UsageRecord } from '../usage/record.ts'
import type { WorkflowVersion } from '../workflows/definition.ts'
import type { Changes } from './changes.ts'

export interface Stores {
  /** The embedded SQLite database; store modules create their tables through `migrate`. */
  sqlite: Database
  /** Cached responses, shared by every workflow (in-process LRU now; Redis for several replicas). */
  responseCache: ResponseCache
  /** Rate-limit and budget counters (in-process now; Redis for several replicas). */
  counters: Counters
  /** Tells every replica that shared definitions changed (in-process, or Redis pub/sub with `REDIS_URL`). */
  changes: Changes
  close(): void
}

/** A cached response: the non-streamed document, replayed as a stream when a client streams. */
export interface CachedResponse {
  /** `chat.completion` JSON text. */
  body: string
  storedAt: number
}

export interface ResponseCacheStats {
  entries: number
  bytes: number
  maxBytes: number
  hits: number
  misses: number
  evictions: number
}

export interface ResponseCache {
  get(key: string): Promise<CachedResponse | undefined>
  set(key: string, value: CachedResponse, ttlMs: number): Promise<void>
  stats(): ResponseCacheStats
}

/** A managed API key as stored. The secret itself is never stored: only its SHA-256 and a redacted form. */
export interface ApiKeyRecord {
  id: string
  name: string
  description: string
  /** SHA-256 (hex) of the full secret; the lookup key of the in-memory snapshot. */
  keyHash: string
  /** Prefix and last four characters, e.g. `sk-gw-...Xy9Q`, so people can tell keys apart. */
  redactedKey: string
  /** Normalised user path the key is bound to; null when unbound. */
  userPath: string | null
  /** Selectors, virtual model names or `prefix*` patterns; null means every model. */
  allowedModels: readonly string[] | null
  dashboardEnabled: boolean
  /** RFC 3339 timestamps in UTC (`toISOString`), so they sort as text. */
  expiresAt: string | null
  createdAt: string
  updatedAt: string
  revokedAt: string | null
  /** Principal id that created the key (`master` or a managed key id). */
  createdBy: string
}

/** Fields an update may change; absent means unchanged, null clears. */
export interface ApiKeyChanges {
  name?: string
  description?: string
  userPath?: string | null
  allowedModels?: readonly string[] | null
  dashboardEnabled?: boolean
  expiresAt?: string | null
}

export interface ApiKeyListQuery {
  limit: number
  offset: number
  /** Case-insensitive substring of name or description. */
  search?: string
  includeRevoked: boolean
  /** Keys bound to this path or below it. */
  userPath?: string
}

export interface ApiKeyPage {
  keys: ApiKeyRecord[]
  total: number
}

/** Persistence of managed keys. Requests never wait on it: they read the snapshot in src/keys/key-directory.ts. */
export interface KeyStore {
  /** Every key, revoked ones included (revocations must reach the snapshot too). */
  loadAll(): Promise<ApiKeyRecord[]>
  list(query: ApiKeyListQuery): Promise<ApiKeyPage>
  get(id: string): Promise<ApiKeyRecord | undefined>
  insert(record: ApiKeyRecord): Promise<void>
  /** Applies the changes to a key that is not revoked; undefined when there is no such key. */
  update(id: string, changes: ApiKeyChanges, updatedAt: string): Promise<ApiKeyRecord | undefined>
  /**
   * Marks the key revoked. Idempotent: an earlier revocation is kept and `changed` is false. Undefined when
   * there is no such key.
   */
  revoke(id: string, revokedAt: string): Promise<{ record: ApiKeyRecord; changed: boolean } | undefined>
}

/** Versioned workflows. Requests never read it: the workflow registry keeps the active versions in memory. */
export interface WorkflowStore {
  listActive(): Promise<WorkflowVersion[]>
  /** Every version of one workflow, newest first. */
  history(workflowId: string): Promise<WorkflowVersion[]>
  /** The newest version with this name, active or not. */
  latestByName(name: string): Promise<WorkflowVersion | undefined>
  /** Stores a new version and makes it the only active one of its workflow. */
  insertVersion(version: WorkflowVersion): Promise<void>
  /** Deactivates every version of the workflow; false when there is none. */
  deactivate(workflowId: string): Promise<boolean>
}

/**
 * Numeric counters with expiry, for rate limits and budgets. Every operation is atomic per key, so concurrent
 * requests (and, with Redis, replicas) cannot both take the last unit.
 */
export interface Counters {
  /** Adds `delta` unless the result would exceed `limit`; the TTL is set when the key is created. */
  addWithin(key: string, delta: number, limit: number, ttlMs: number): Promise<{ ok: boolean; value: number }>
  /** Adds `delta` (may be negative) unconditionally. */
  add(key: string, delta: number, ttlMs: number): Promise<number>
  get(key: string): Promise<number>
}

/** Budget and rate-limit definitions; requests read the in-memory copy in src/limits/registry.ts. */
export interface LimitStore {
  budgets(): Promise<Budget[]>
  rateLimits(): Promise<RateLimit[]>
  saveBudget(budget: Budget): Promise<void>
  saveRateLimit(limit: RateLimit): Promise<void>
  deleteBudget(id: string): Promise<boolean>
  deleteRateLimit(id: string): Promise<boolean>
}

/**
 * The audit log's persistence. Requests never call it: entries reach it in batches through the audit writer
 * (src/audit/writer.ts); the admin API reads it.
 */
export interface AuditStore {
  /** Stores the rows in one transaction; ids already stored are skipped, so replays are idempotent. Resolves to how many were new. */
  writeBatch(rows: readonly AuditRow[]): Promise<number>
  /** One page, newest first. List entries carry no heavy payloads (`bodies_omitted: true`). */
  list(query: AuditLogQuery): Promise<AuditLogPage>
  /** The full entry (bodies, attempts' error bodies, revision bodies) with its usage summary. */
  get(id: string): Promise<AuditLogEntry | undefined>
  /** The thread around an entry: its session, else its Responses `previous_response_id` chain. Undefined for an unknown id. */
  conversation(anchorId: string, limit: number): Promise<AuditConversation | undefined>
  stats(query: AuditStatsQuery): Promise<AuditStats>
  /** Deletes up to `batch` entries that started before `cutoffMs` (epoch ms); resolves to how many. */
  deleteOlderThan(cutoffMs: number, batch: number): Promise<number>
}

export interface UsageQuery {
  fromMs: number
  toMs: number
}

export interface UsageTotals {
  requests: number
  input_tokens: number
  output_tokens: number
  total_tokens: number
  cached_input_tokens: number
  cache_write_input_tokens: number
  reasoning_tokens: number
  cost_usd: number
  saved_usd: number
  rewrite_tokens_saved: number
  rewrite_cost_saved: number
  estimated_requests: number
  cache_hits: number
}

export type UsageBreakdownRow = UsageTotals & Record<string, string | number>

export const USAGE_GROUPS = ['model', 'provider', 'key', 'user_path', 'label'] as const
/** What usage sums can be grouped by; `label` counts a request under each of its labels ('' when it has none). */
export type UsageGroup = (typeof USAGE_GROUPS)[number]

/** Usage records (written in batches off the request path) and price overrides. */
export interface UsageStore {
  writeBatch(records: readonly UsageRecord[]): Promise<void>
  totals(query: UsageQuery): Promise<UsageTotals>
  breakdown(query: UsageQuery, by: UsageGroup, interval?: 'day'): Promise<UsageBreakdownRow[]>
  priceOverrides(): Promise<Record<string, ModelPrice>>
  setPriceOverride(model: string, price: ModelPrice): Promise<void>
  deletePriceOverride(model: string): Promise<boolean>
}

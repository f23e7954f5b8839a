/**
 * @module Store interfaces the rest of the gateway sees. `openStores` (open.ts) returns one `Stores` per process;
 * each backend lives in its own folder (sqlite, postgres; memory and redis for counters, the cache and the change
 * feed) with the same file names. Nothing outside src/stores names a backend, and inside it only the backend's
 * own folder and the composition roots do (open.ts, primary-stores.ts, write-thread-worker.ts, shared-caches.ts:
 * src/stores/layers.test.ts).
 */
import type { AdminRole } from '../admin/roles.ts'
import type { AuditLogEntry, AuditLogPage, AuditLogQuery, AuditStatsQuery } from '../audit/entry.ts'
import type { AuditRecorder } from '../audit/recorder.ts'
import type { AuditWriterStats } from './write-path/audit-writer.ts'
import type { BatchLine, BatchLineResult, BatchListQuery, BatchRecord, BatchStatus } from '../batches/batch-record.ts'
import type { UsageWriterStats } from './write-path/usage-writer.ts'
import type { Budget, RateLimit } from '../limits/definitions.ts'
import type { ModelPrice } from '../usage/pricing.ts'
import type { UsageRecord } from '../usage/record.ts'
import type { UnitTotalName } from '../usage/units.ts'
import type { WorkflowVersion } from '../workflows/definition.ts'
import type { StoredFileInfo } from '../files/file-access.ts'
import type { StoreEvents } from './batch-events.ts'
import type { Changes } from './changes.ts'

export interface Stores {
  keys: KeyStore
  workflows: WorkflowStore
  limits: LimitStore
  prices: PriceStore
  /** Where audit entries go: takes entries, never waits; batching, encoding and spill files are the backend's. */
  auditSink: AuditSink
  /** The audit log as the admin API and retention read it. */
  audit: AuditReader
  /** Where retention deletes expired entries when not through `audit` (SQLite: on the write thread, off the request thread). */
  auditExpiry?: Pick<AuditReader, 'deleteOlderThan'>
  /** Where usage records go: takes records, never waits; written in batches. */
  usageSink: UsageSink
  usage: UsageReader
  /** Stored Responses threads, for `previous_response_id` on any provider. */
  responseThreads: ResponseThreadStore
  /** Batches and their lines' progress (src/batches). */
  batches: BatchStore
  /** MCP servers and visibility rules added through the admin API, and upstream OAuth credentials (src/mcp/). */
  mcp: McpStore
  /** The Files API's records (their bytes are in the byte store, src/stores/blobs). */
  files: FileStore
  /** The Uploads API's uploads and their parts (the parts' bytes are in the byte store until the upload ends). */
  uploads: UploadStore
  /** Rate-limit and budget counters (in-process for one replica; Redis for several). */
  counters: Counters
  /** Cached responses, shared by every workflow (in-process LRU for one replica; Redis for several). */
  responseCache: ResponseCache
  /** Tells every replica that shared definitions changed (src/stores/changes.ts). */
  changes: Changes
  /** Jobs that must run on one replica at a time (retention, migrations). */
  lease: Lease
  /** Whether the shared database answers (a server backend watches it; the embedded one has none to lose). */
  health?(): StoreHealth
  /** Batch write durations and failures of the audit and usage sinks, for whoever attaches (the metrics). */
  events?: StoreEvents
  /** Closes connections; drain the sinks first (the composition root does, at shutdown). */
  close(): Promise<void>
}

export interface StoreHealth {
  backend: 'sqlite' | 'postgres'
  reachable: boolean
  /** When it became unreachable (RFC 3339). */
  unreachableSince?: string
  error?: string
}

/** Mutual exclusion across replicas, by name (PostgreSQL advisory locks; one process needs none). */
export interface Lease {
  /** Runs `job` when this process obtains the lease `name`; resolves to undefined (job not run) when another holds it. */
  runExclusive<T>(name: string, job: () => Promise<T>): Promise<T | undefined>
}

/** The audit sink as the composition root, the admin API and the tests use it. */
export interface AuditSink extends AuditRecorder {
  /** Replays spill files left by an earlier process and starts the periodic report. */
  start(): void
  stats(): AuditWriterStats
  /** Resolves when everything recorded so far is stored (or spilled, when the store is down past the deadline). */
  flush(deadlineMs?: number): Promise<void>
  /** Writes the queue and the spill files, then stops; what cannot be written before the deadline stays spilled. */
  drain(deadlineMs?: number): Promise<void>
}

/** An audit entry as a conversation view reads it: the entry (bodies, no attempts) and what links it to others. */
export interface AuditThreadEntry {
  entry: AuditLogEntry
  /** The backend's order of entries with equal timestamps; opaque above the interface. */
  position: number
  responseId: string | null
  previousResponseId: string | null
}

/**
 * Which entries may join a conversation: a session id and a `previous_response_id` are the client's choice, so
 * another tenant can send the same; only entries of the anchor's principal count, inside the reader's subtree.
 */
export interface ThreadFilter {
  principalId: string
  /** The reader's admin scope; absent: any user path. */
  userPath?: string
}

/** One stats bucket as the store aggregates it; src/audit/stats.ts fills the gaps and sums up. */
export interface AuditStatsRow {
  /** Bucket number: floor((ts - from) / bucketMs). */
  bucket: number
  requests: number
  status_2xx: number
  status_4xx: number
  status_5xx: number
  avg_duration_ns: number
  max_duration_ns: number
}

/** Reads of the audit log (admin API, dashboard, retention). Requests never call it. */
export interface AuditReader {
  /** One page, newest first. List entries carry no heavy payloads (`bodies_omitted: true`). */
  list(query: AuditLogQuery): Promise<AuditLogPage>
  /** The full entry (bodies, attempts' error bodies, revision bodies) with its usage summary. */
  get(id: string): Promise<AuditLogEntry | undefined>
  /** The entry as a thread member; the walk itself is src/audit/conversation.ts. */
  threadEntry(id: string): Promise<AuditThreadEntry | undefined>
  /** Up to `limit` entries of the session (and the filter) strictly before (newest first) or after (oldest first) `from`. */
  sessionEntries(sessionId: string, from: AuditThreadEntry, direction: 'before' | 'after', limit: number, filter: ThreadFilter): Promise<AuditThreadEntry[]>
  /** The newest entry (of the filter) that answered with this Responses id. */
  byResponseId(responseId: string, filter: ThreadFilter): Promise<AuditThreadEntry | undefined>
  /** The oldest entry (of the filter) whose request continued this Responses id. */
  byPreviousResponseId(responseId: string, filter: ThreadFilter): Promise<AuditThreadEntry | undefined>
  /** Request entries (no security events) in `[from, to)`, aggregated per bucket; empty buckets are absent. */
  statsRows(query: AuditStatsQuery): Promise<AuditStatsRow[]>
  /** Deletes up to `batch` entries that started before `cutoffMs` (epoch ms); resolves to how many. */
  deleteOlderThan(cutoffMs: number, batch: number): Promise<number>
}

/** Where usage records go; batches are written off the request path. */
export interface UsageSink {
  record(record: UsageRecord): void
  /** Replays spill files left by an earlier process (src/stores/write-path/usage-writer.ts). */
  start(): void
  /** Resolves when every record handed over so far is stored (admin reads call it first). */
  flush(): Promise<void>
  /** Writes what is queued, then stops. */
  drain(deadlineMs?: number): Promise<void>
  /** Queue depth, written, lost (src/stores/write-path/usage-writer.ts), for /ready and the metrics. */
  stats(): UsageWriterStats
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
  /** Its admin role (src/admin/roles.ts), confined to `userPath`; null: no admin access, /v1 only. */
  role: AdminRole | null
  /** RFC 3339 timestamps in UTC (`toISOString`), so they sort as text. */
  expiresAt: string | null
  createdAt: string
  updatedAt: string
  revokedAt: string | null
  /** Principal id that created the key (`master`, a managed key id, later a signed-in person). Revoking a key revokes the keys it created. */
  createdBy: string
}

/** Fields an update may change; absent means unchanged, null clears. */
export interface ApiKeyChanges {
  name?: string
  description?: string
  userPath?: string | null
  allowedModels?: readonly string[] | null
  role?: AdminRole | null
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
  /**
   * Stores a key. With `liveCreator`, only while the key that creates it (`createdBy`, when it names a key) is not
   * revoked: checked in the insert's transaction, against a revocation running at the same moment, so no key made
   * through the admin API outlives its creator. (A copy of a database stores keys as they are.)
   */
  insert(record: ApiKeyRecord, options?: { liveCreator?: boolean }): Promise<'inserted' | 'creator_revoked'>
  /** Applies the changes to a key that is not revoked; undefined when there is no such key. */
  update(id: string, changes: ApiKeyChanges, updatedAt: string): Promise<ApiKeyRecord | undefined>
  /**
   * Marks the key revoked, and in the same transaction every key it created, transitively (`cascaded`: those
   * revoked now). Idempotent: an earlier revocation is kept and `changed` is false, but descendants still
   * unrevoked are revoked. Undefined when there is no such key.
   */
  revoke(id: string, revokedAt: string): Promise<RevokedKeys | undefined>
}

export interface RevokedKeys {
  record: ApiKeyRecord
  changed: boolean
  /** Keys below it (created by it, or by those, …) that this call revoked. */
  cascaded: ApiKeyRecord[]
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
 * Integer counters with expiry (requests, tokens, micro-dollars), for rate limits and budgets. Every operation is
 * atomic per key, so concurrent requests (and, with Redis, replicas) cannot both take the last unit.
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

export interface UsageQuery {
  fromMs: number
  toMs: number
  /** Only records of this user path and below it (a scoped principal's subtree); absent: every record. */
  userPath?: string
}

/** The sums of a range; work priced per unit is summed per unit under its report name (`images`, `audio_seconds`, …: src/usage/units.ts). */
export interface UsageTotals extends Record<UnitTotalName, number> {
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

/** Sums of usage records over a time range. */
export interface UsageReader {
  totals(query: UsageQuery): Promise<UsageTotals>
  breakdown(query: UsageQuery, by: UsageGroup, interval?: 'day'): Promise<UsageBreakdownRow[]>
}

/** Admin price overrides (USD per million tokens) by model selector. */
export interface PriceStore {
  all(): Promise<Record<string, ModelPrice>>
  set(model: string, price: ModelPrice): Promise<void>
  delete(model: string): Promise<boolean>
}

/** Who may continue (or read) a stored Responses thread: the principal that made it, under the user path it used. */
export interface ResponseThreadOwner {
  /** `Principal.id`: the managed key's id, `master` or `anonymous`. */
  principalId: string
  /** The request's user path; '' when it had none. */
  userPath: string
}

/** A stored Responses conversation: the whole thread as Responses input items (its input plus its output). */
export interface ResponseThread {
  id: string
  owner: ResponseThreadOwner
  providerName: string
  /** Answered by the provider's own Responses API, which keeps its own copy (not when the request said `store: false`). */
  native: boolean
  items: unknown[]
  /**
   * The response as the client got it (its id, status, output and usage), what `GET /v1/responses/{id}` answers for
   * a translated thread; null in threads saved before responses were kept.
   */
  response: Record<string, unknown> | null
}

export interface ResponseThreadStore {
  /**
   * The thread when `owner` made it; undefined when there is none or another owner made it (the two are not told
   * apart, so an id's existence does not leak). Threads older than the retention are deleted by `deleteOlderThan`.
   */
  get(id: string, owner: ResponseThreadOwner): Promise<ResponseThread | undefined>
  /** Stores or replaces the thread; an existing thread of another owner with the same id is left as it is. */
  save(thread: ResponseThread): Promise<void>
  /** Deletes the thread when `owner` made it; false when there is none or another owner made it (not told apart). */
  delete(id: string, owner: ResponseThreadOwner): Promise<boolean>
  /** Deletes up to `batch` threads saved before `cutoffMs` (epoch ms); resolves to how many. */
  deleteOlderThan(cutoffMs: number, batch: number): Promise<number>
}

/** Which of an owner's files a list shows (OpenAI's list parameters); ids are time-ordered. */
export interface FileListQuery {
  /** Only files created after this one in the list's order (its id); undefined: from the start. */
  after?: string
  limit: number
  order: 'asc' | 'desc'
  purpose?: string
  /** Files whose `expiresAt` is at or before this (epoch seconds) are left out: expired, even if not swept yet. */
  now: number
}

/** The dashboard's view of every file: newest first, inside a user path subtree. */
export interface FileAdminQuery {
  /** The reader's admin scope: files whose user path is this or below it; absent: any. */
  userPath?: string
  owner?: string
  purpose?: string
  /** Only files older than this id (the previous page's last). */
  before?: string
  limit: number
}

/**
 * The Files API's records. Every read and delete names the owner: another owner's file is undefined (not told apart
 * from a missing one), so an id's existence never leaks. One writer per record: the file service.
 */
export interface FileStore {
  insert(file: StoredFileInfo): Promise<void>
  get(id: string, owner: string): Promise<StoredFileInfo | undefined>
  /** `limit` + 1 rows at most, so the caller can tell `has_more`. */
  list(owner: string, query: FileListQuery): Promise<StoredFileInfo[]>
  /** Deletes the record when `owner` owns it; the deleted record, or undefined. */
  delete(id: string, owner: string): Promise<StoredFileInfo | undefined>
  /** Up to `batch` records whose `expiresAt` is at or before `now` (epoch seconds). */
  expired(now: number, batch: number): Promise<StoredFileInfo[]>
  /** Deletes the record whatever its owner (the expiry sweep, after its bytes went). */
  forget(id: string): Promise<void>
  /** Admin reads (the dashboard's Files page). */
  adminList(query: FileAdminQuery): Promise<StoredFileInfo[]>
}

/** An upload in progress (OpenAI's Uploads API): parts are added, then it is completed into a file or cancelled. */
export interface StoredUpload {
  /** `upload_` followed by an opaque, time-ordered id. */
  id: string
  owner: string
  userPath: string
  filename: string
  purpose: string
  /** The size the file must have. */
  bytes: number
  mimeType: string
  /** Epoch seconds. */
  createdAt: number
  /** Epoch seconds: an hour after creation, as at OpenAI; its parts go then. */
  expiresAt: number
  /** The file's own `expires_after[seconds]`, when asked for. */
  fileExpiresAfter: number | null
  status: 'pending' | 'completed' | 'cancelled'
  /** The file it became. */
  fileId: string | null
}

export interface StoredUploadPart {
  /** `part_` followed by an opaque id; also the key of its bytes. */
  id: string
  uploadId: string
  bytes: number
  /** Epoch seconds. */
  createdAt: number
}

/** The Uploads API's records. Reads name the owner, as for files. One writer: the upload service. */
export interface UploadStore {
  create(upload: StoredUpload): Promise<void>
  get(id: string, owner: string): Promise<StoredUpload | undefined>
  addPart(part: StoredUploadPart): Promise<void>
  parts(uploadId: string): Promise<StoredUploadPart[]>
  /** Moves a pending upload of `owner` to `status`; false when it was not pending (or not theirs). */
  finish(id: string, owner: string, status: 'completed' | 'cancelled', fileId: string | null): Promise<boolean>
  /** Up to `batch` uploads whose `expiresAt` is at or before `now`. */
  expired(now: number, batch: number): Promise<StoredUpload[]>
  /** Deletes the upload's record and its parts' records. */
  forget(id: string): Promise<void>
}

/** An MCP server added through the admin API; its configuration is sealed (it may hold headers and environment with secrets). */
export interface StoredMcpServer {
  name: string
  /** The server's configuration as JSON, sealed by src/mcp/secrets.ts (AES-256-GCM, bound to the name). */
  sealedConfig: string
  createdAt: string
  updatedAt: string
}

/** A visibility rule added through the admin API (src/mcp/config.ts `visibilityRuleSchema`). */
export interface StoredMcpRule {
  id: string
  rule: unknown
  createdAt: string
}

/**
 * What the gateway keeps as an OAuth client of an upstream MCP server: a caller's tokens (`owner_kind` `key` or
 * `user_path`), or the gateway's own client registration at the server (`client`, owner ''). `sealed` is sealed by
 * src/mcp/secrets.ts, bound to server, owner kind and owner; nothing in the other columns is secret.
 */
export interface StoredMcpCredential {
  id: string
  server: string
  ownerKind: 'key' | 'user_path' | 'client'
  ownerId: string
  /** The caller's user path when it was stored, so scoped admins see their subtree's; null for `client` rows. */
  userPath: string | null
  sealed: string
  scope: string | null
  /** When the access token expires (RFC 3339); null when unknown. */
  expiresAt: string | null
  createdAt: string
  updatedAt: string
}

export interface McpCredentialQuery {
  server?: string
  /** Only credentials of callers in this subtree. */
  userPath?: string
  /** `client` rows are not listed unless asked for. */
  includeClients?: boolean
  limit: number
}

export interface McpStore {
  servers(): Promise<StoredMcpServer[]>
  /** Inserts or replaces by name. */
  putServer(server: StoredMcpServer): Promise<void>
  deleteServer(name: string): Promise<boolean>
  rules(): Promise<StoredMcpRule[]>
  putRule(rule: StoredMcpRule): Promise<void>
  deleteRule(id: string): Promise<boolean>
  credential(server: string, ownerKind: StoredMcpCredential['ownerKind'], ownerId: string): Promise<StoredMcpCredential | undefined>
  credentialById(id: string): Promise<StoredMcpCredential | undefined>
  /** Inserts or replaces by (server, owner kind, owner); keeps the stored id and creation time when replacing. */
  putCredential(credential: StoredMcpCredential): Promise<void>
  credentials(query: McpCredentialQuery): Promise<StoredMcpCredential[]>
  /** Deletes one by id; returns what was deleted. */
  deleteCredential(id: string): Promise<StoredMcpCredential | undefined>
}

/** What a finished line leaves: its outcome, its audit entry, its cost; the batch's counts and cost follow. */
export interface FinishedBatchLine {
  state: 'succeeded' | 'failed'
  result: BatchLineResult
  auditId: string | null
  costUsd: number
}

/** Lines a bulk change ended: how many, and their estimates to release from the batch's budgets. */
export interface EndedBatchLines {
  lines: number
  estimateMicro: number
}

/** Batches and their lines (src/batches). Every change of a line is one transaction with the batch's counts. */
export interface BatchStore {
  /** Stores a new batch and all its lines together. */
  insert(batch: BatchRecord, lines: readonly BatchLine[]): Promise<void>
  /** The batch when `principalId` (if given) owns it; undefined otherwise (not told apart). */
  get(id: string, principalId?: string): Promise<BatchRecord | undefined>
  /** Newest first. */
  list(query: BatchListQuery): Promise<BatchRecord[]>
  /** Batches in one of `statuses`, oldest first: what the executors work on. */
  withStatus(statuses: readonly BatchStatus[], limit: number): Promise<BatchRecord[]>
  /** Applies `changes` when the batch is in one of `from` (a compare-and-set); the batch after, or undefined. */
  transition(id: string, from: readonly BatchStatus[], changes: Partial<Omit<BatchRecord, 'id' | 'owner' | 'requestCounts'>>): Promise<BatchRecord | undefined>
  /** Lines of the batch in file order from `fromIndex`, only those in `states` when given. */
  lines(batchId: string, query: { states?: readonly BatchLine['state'][]; fromIndex?: number; limit: number }): Promise<BatchLine[]>
  /** Marks a line in state `from` (default pending) claimed by replica `by`; false when it was not in that state any more. */
  claimLine(batchId: string, index: number, by: string, atMs: number, from?: 'pending' | 'submitted'): Promise<boolean>
  /** Lines claimed by `by` were taken by the provider batch API `target` as `job` (JSON). */
  submitLines(batchId: string, indexes: readonly number[], by: string, target: string, job: string): Promise<void>
  /**
   * Lines claimed by a replica that stopped: one with a provider job goes back to submitted (its answer is the
   * provider's, read again); one without fails with `result` (it may have reached the provider: never sent twice).
   * Resolves to how many failed.
   */
  recoverClaimed(batchId: string, result: BatchLineResult): Promise<EndedBatchLines>
  /** A line claimed by `by` finishes; false (nothing changed) when it is not claimed by `by`. */
  finishLine(batchId: string, index: number, by: string, finished: FinishedBatchLine): Promise<boolean>
  /** Every line in one of `states` fails with `result` (counted as failed). */
  failLines(batchId: string, states: readonly ('pending' | 'claimed')[], result: BatchLineResult): Promise<EndedBatchLines>
}

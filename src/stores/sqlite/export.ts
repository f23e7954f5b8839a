/**
 * @module Reads a whole SQLite database in key order, page by page, as domain objects: the source side of the
 * copy to PostgreSQL (src/stores/copy-sqlite-to-postgres.ts). Pages are keyed by the row key, so a copy can
 * resume after the last page it committed.
 */
import type { Database } from 'bun:sqlite'
import { sql } from 'drizzle-orm'
import type { AuditLogEntry } from '../../audit/entry.ts'
import type { UsageRecord } from '../../usage/record.ts'
import { type UsageUnit, unitUsageOf } from '../../usage/units.ts'
import { type AuditLogRow, fullEntry } from '../audit-query/rows.ts'
import { orm } from './orm.ts'
import { usageRecords } from './schema.ts'

export interface ExportPage<T> {
  items: T[]
  /** The key after which the next page starts. */
  last: number
}

export function sqliteExport(db: Database) {
  const o = orm(db)
  const auditPage = db.query<AuditLogRow, [number, number]>(
    'SELECT a.*, p.payload FROM audit_log a LEFT JOIN audit_log_payloads p ON p.seq = a.seq WHERE a.seq > ? ORDER BY a.seq LIMIT ?',
  )
  const count = (table: 'audit_log' | 'usage_records') => db.query<{ n: number }, []>(`SELECT COUNT(*) AS n FROM ${table}`).get()?.n ?? 0
  return {
    counts: () => ({ audit: count('audit_log'), usage: count('usage_records') }),

    /** Full entries (bodies and attempts) after row key `after`, oldest stored first. */
    audit(after: number, limit: number): ExportPage<AuditLogEntry> {
      const rows = auditPage.all(after, limit)
      return { items: rows.map((r) => fullEntry(r)), last: rows.at(-1)?.seq ?? after }
    },

    usage(after: number, limit: number): ExportPage<UsageRecord> {
      const rows = o.select({ rowid: sql<number>`rowid`, r: usageRecords }).from(usageRecords).where(sql`rowid > ${after}`).orderBy(sql`rowid`).limit(limit).all()
      return { items: rows.map(({ r }) => toUsageRecord(r)), last: rows.at(-1)?.rowid ?? after }
    },
  }
}

function toUsageRecord(r: typeof usageRecords.$inferSelect): UsageRecord {
  return {
    id: r.id,
    ts: r.ts,
    key_id: r.keyId,
    user_path: r.userPath,
    provider_name: r.providerName,
    provider_type: r.providerType,
    model: r.model,
    requested_model: r.requestedModel,
    prompt_tokens: r.promptTokens,
    completion_tokens: r.completionTokens,
    total_tokens: r.totalTokens,
    cached_tokens: r.cachedTokens,
    cache_write_tokens: r.cacheWriteTokens,
    reasoning_tokens: r.reasoningTokens,
    cost_usd: r.costUsd,
    saved_usd: r.savedUsd,
    rewrite_tokens_saved: r.rewriteTokensSaved,
    rewrite_cost_saved: r.rewriteCostSaved,
    priced: r.priced,
    estimated: r.estimated,
    cache_hit: r.cacheHit,
    labels: JSON.parse(r.labels) as string[],
    ...unitUsageOf({ unit: (r.unit || undefined) as UsageUnit | undefined, units: r.units, unit_variant: r.unitVariant }),
  }
}

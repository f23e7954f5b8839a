/**
 * @module Managed API keys in PostgreSQL. Only the SHA-256 of a secret and a redacted form are written; the
 * secret itself never reaches this file.
 */
import { and, count, desc, eq, ilike, isNotNull, isNull, or, sql, type SQL as Condition } from 'drizzle-orm'
import { isAdminRole } from '../../admin/roles.ts'
import { legacyDashboardFlag } from '../legacy-dashboard-flag.ts'
import { likeLiteral, withinUserPath } from '../user-path-filter.ts'
import type { ApiKeyChanges, ApiKeyListQuery, ApiKeyPage, ApiKeyRecord, KeyStore, RevokedKeys } from '../types.ts'
import type { PgDb } from './client.ts'
import { apiKeys } from './schema.ts'

type Row = typeof apiKeys.$inferSelect

/** A role this release does not know (written by a newer one) grants nothing. */
const fromRow = ({ dashboardEnabled: _legacy, ...row }: Row): ApiKeyRecord => ({ ...row, allowedModels: row.allowedModels ?? null, role: isAdminRole(row.role) ? row.role : null })

/** The keys below `id`: created by it, by those, and so on (UNION stops at a key seen twice). */
const descendantsOf = (id: string) =>
  sql`${apiKeys.id} IN (WITH RECURSIVE tree(id) AS (SELECT id FROM api_keys WHERE created_by = ${id} UNION SELECT k.id FROM api_keys k JOIN tree t ON k.created_by = t.id) SELECT id FROM tree)`

export class PostgresKeyStore implements KeyStore {
  constructor(private readonly db: PgDb) {}

  async loadAll(): Promise<ApiKeyRecord[]> {
    return (await this.db.select().from(apiKeys)).map(fromRow)
  }

  async list(query: ApiKeyListQuery): Promise<ApiKeyPage> {
    const where: Condition[] = []
    if (!query.includeRevoked) where.push(isNull(apiKeys.revokedAt))
    if (query.search) {
      const pattern = `%${likeLiteral(query.search)}%`
      where.push(or(ilike(apiKeys.name, pattern), ilike(apiKeys.description, pattern))!)
    }
    if (query.userPath === '/') where.push(isNotNull(apiKeys.userPath))
    else if (query.userPath) where.push(withinUserPath(apiKeys.userPath, query.userPath))
    const filter = where.length ? and(...where) : undefined
    const [rows, [total]] = await Promise.all([
      this.db.select().from(apiKeys).where(filter).orderBy(desc(apiKeys.createdAt), apiKeys.id).limit(query.limit).offset(query.offset),
      this.db.select({ n: count() }).from(apiKeys).where(filter),
    ])
    return { keys: rows.map(fromRow), total: total?.n ?? 0 }
  }

  async get(id: string): Promise<ApiKeyRecord | undefined> {
    const [row] = await this.db.select().from(apiKeys).where(eq(apiKeys.id, id))
    return row ? fromRow(row) : undefined
  }

  async insert(record: ApiKeyRecord, options: { liveCreator?: boolean } = {}): Promise<'inserted' | 'creator_revoked'> {
    return this.db.transaction(async (tx) => {
      // FOR SHARE: a revocation of the creator (FOR UPDATE, below) waits for this insert, or this waits for it and sees it.
      if (options.liveCreator) {
        const [creator] = await tx.select({ revokedAt: apiKeys.revokedAt }).from(apiKeys).where(eq(apiKeys.id, record.createdBy)).for('share')
        if (creator && creator.revokedAt !== null) return 'creator_revoked'
      }
      await tx.insert(apiKeys).values({ ...record, allowedModels: record.allowedModels === null ? null : [...record.allowedModels], dashboardEnabled: legacyDashboardFlag(record) })
      return 'inserted'
    })
  }

  async update(id: string, changes: ApiKeyChanges, updatedAt: string): Promise<ApiKeyRecord | undefined> {
    const set: Partial<typeof apiKeys.$inferInsert> = { updatedAt }
    if (changes.name !== undefined) set.name = changes.name
    if (changes.description !== undefined) set.description = changes.description
    if (changes.userPath !== undefined) set.userPath = changes.userPath
    if (changes.allowedModels !== undefined) set.allowedModels = changes.allowedModels === null ? null : [...changes.allowedModels]
    if (changes.role !== undefined) set.role = changes.role
    if (changes.expiresAt !== undefined) set.expiresAt = changes.expiresAt
    return this.db.transaction(async (tx) => {
      const [row] = await tx
        .update(apiKeys)
        .set(set)
        .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
        .returning()
      if (!row) return undefined
      const record = fromRow(row)
      const legacy = legacyDashboardFlag(record)
      if (legacy !== row.dashboardEnabled) await tx.update(apiKeys).set({ dashboardEnabled: legacy }).where(eq(apiKeys.id, id))
      return record
    })
  }

  async revoke(id: string, revokedAt: string): Promise<RevokedKeys | undefined> {
    return this.db.transaction(async (tx) => {
      const [current] = await tx.select().from(apiKeys).where(eq(apiKeys.id, id)).for('update')
      if (!current) return undefined
      const changed = current.revokedAt === null
      const at = { revokedAt, updatedAt: revokedAt }
      const record = changed ? (await tx.update(apiKeys).set(at).where(eq(apiKeys.id, id)).returning())[0]! : current
      // Until nothing is left: each statement reads a new snapshot under READ COMMITTED, so a key created under a
      // descendant while the previous statement waited for that descendant's row lock (held FOR SHARE by the insert
      // above) is found by the next one.
      const cascaded: Row[] = []
      for (;;) {
        const revoked = await tx
          .update(apiKeys)
          .set(at)
          .where(and(descendantsOf(id), isNull(apiKeys.revokedAt)))
          .returning()
        if (revoked.length === 0) break
        cascaded.push(...revoked)
      }
      return { record: fromRow(record), changed, cascaded: cascaded.map(fromRow) }
    })
  }
}

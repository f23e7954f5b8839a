/**
 * @module Managed API keys in the embedded SQLite store. Only the SHA-256 of a secret and a redacted form are
 * written; the secret itself never reaches this file.
 */
import type { Database } from 'bun:sqlite'
import { and, count, desc, eq, isNotNull, isNull, or, sql, type SQL } from 'drizzle-orm'
import { isAdminRole } from '../../admin/roles.ts'
import { legacyDashboardFlag } from '../legacy-dashboard-flag.ts'
import { likeEscaped, likeLiteral, withinUserPath } from '../user-path-filter.ts'
import type { ApiKeyChanges, ApiKeyListQuery, ApiKeyPage, ApiKeyRecord, KeyStore, RevokedKeys } from '../types.ts'
import { orm, type Orm } from './orm.ts'
import { apiKeys } from './schema.ts'

type Row = typeof apiKeys.$inferSelect

/** A role this release does not know (written by a newer one) grants nothing. */
const fromRow = ({ dashboardEnabled: _legacy, ...row }: Row): ApiKeyRecord => ({ ...row, allowedModels: row.allowedModels ?? null, role: isAdminRole(row.role) ? row.role : null })

/** The keys below `id`: created by it, by those, and so on (UNION stops at a key seen twice). */
const descendantsOf = (id: string) =>
  sql`${apiKeys.id} IN (WITH RECURSIVE tree(id) AS (SELECT id FROM api_keys WHERE created_by = ${id} UNION SELECT k.id FROM api_keys k JOIN tree t ON k.created_by = t.id) SELECT id FROM tree)`

export class SqliteKeyStore implements KeyStore {
  private readonly orm: Orm

  constructor(private readonly db: Database) {
    this.orm = orm(db)
  }

  async loadAll(): Promise<ApiKeyRecord[]> {
    return this.orm.select().from(apiKeys).all().map(fromRow)
  }

  async list(query: ApiKeyListQuery): Promise<ApiKeyPage> {
    const where: SQL[] = []
    if (!query.includeRevoked) where.push(isNull(apiKeys.revokedAt))
    if (query.search) {
      const pattern = `%${likeLiteral(query.search)}%`
      where.push(or(likeEscaped(apiKeys.name, pattern), likeEscaped(apiKeys.description, pattern))!)
    }
    if (query.userPath === '/') where.push(isNotNull(apiKeys.userPath))
    else if (query.userPath) where.push(withinUserPath(apiKeys.userPath, query.userPath))
    const filter = where.length > 0 ? and(...where) : undefined
    const total = this.orm.select({ n: count() }).from(apiKeys).where(filter).get()?.n ?? 0
    const rows = this.orm.select().from(apiKeys).where(filter).orderBy(desc(apiKeys.createdAt), apiKeys.id).limit(query.limit).offset(query.offset).all()
    return { keys: rows.map(fromRow), total }
  }

  async get(id: string): Promise<ApiKeyRecord | undefined> {
    const row = this.orm.select().from(apiKeys).where(eq(apiKeys.id, id)).get()
    return row ? fromRow(row) : undefined
  }

  async insert(record: ApiKeyRecord, options: { liveCreator?: boolean } = {}): Promise<'inserted' | 'creator_revoked'> {
    // IMMEDIATE: the creator is read under the write lock, so a revocation cannot land between the check and the insert.
    const insert = this.db.transaction((): 'inserted' | 'creator_revoked' => {
      if (options.liveCreator) {
        const creator = this.orm.select({ revokedAt: apiKeys.revokedAt }).from(apiKeys).where(eq(apiKeys.id, record.createdBy)).get()
        if (creator && creator.revokedAt !== null) return 'creator_revoked'
      }
      this.orm
        .insert(apiKeys)
        .values({ ...record, allowedModels: record.allowedModels === null ? null : [...record.allowedModels], dashboardEnabled: legacyDashboardFlag(record) })
        .run()
      return 'inserted'
    })
    return insert.immediate()
  }

  async update(id: string, changes: ApiKeyChanges, updatedAt: string): Promise<ApiKeyRecord | undefined> {
    const { allowedModels, ...rest } = changes
    const set: Partial<typeof apiKeys.$inferInsert> = { ...rest, updatedAt }
    if (allowedModels !== undefined) set.allowedModels = allowedModels === null ? null : [...allowedModels]
    const update = this.db.transaction(() => {
      const row = this.orm
        .update(apiKeys)
        .set(set)
        .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
        .returning()
        .get()
      if (!row) return undefined
      const record = fromRow(row)
      const legacy = legacyDashboardFlag(record)
      if (legacy !== row.dashboardEnabled) this.orm.update(apiKeys).set({ dashboardEnabled: legacy }).where(eq(apiKeys.id, id)).run()
      return record
    })
    return update.immediate()
  }

  async revoke(id: string, revokedAt: string): Promise<RevokedKeys | undefined> {
    const revoke = this.db.transaction((): RevokedKeys | undefined => {
      const row = this.orm.select().from(apiKeys).where(eq(apiKeys.id, id)).get()
      if (!row) return undefined
      const changed = row.revokedAt === null
      const at = { revokedAt, updatedAt: revokedAt }
      const record = changed ? this.orm.update(apiKeys).set(at).where(eq(apiKeys.id, id)).returning().get()! : row
      const cascaded = this.orm
        .update(apiKeys)
        .set(at)
        .where(and(descendantsOf(id), isNull(apiKeys.revokedAt)))
        .returning()
        .all()
      return { record: fromRow(record), changed, cascaded: cascaded.map(fromRow) }
    })
    return revoke.immediate()
  }
}

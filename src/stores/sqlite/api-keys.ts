/**
 * @module Managed API keys in the embedded SQLite store. Only the SHA-256 of a secret and a redacted form are
 * written; the secret itself never reaches this file.
 */
import type { Database } from 'bun:sqlite'
import { and, count, desc, eq, isNotNull, isNull, or, sql, type SQL } from 'drizzle-orm'
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core'
import type { ApiKeyChanges, ApiKeyListQuery, ApiKeyPage, ApiKeyRecord, KeyStore } from '../types.ts'
import { orm, type Orm } from './client.ts'
import { apiKeys } from './schema.ts'

type Row = typeof apiKeys.$inferSelect

const fromRow = (row: Row): ApiKeyRecord => ({ ...row, allowedModels: row.allowedModels ?? null })

/** `%` and `_` in a search are literal characters, not wildcards. */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`)
const likeLiteralIn = (column: SQLiteColumn, pattern: string) => sql`${column} LIKE ${pattern} ESCAPE '\\'`

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
      where.push(or(likeLiteralIn(apiKeys.name, pattern), likeLiteralIn(apiKeys.description, pattern))!)
    }
    if (query.userPath === '/') where.push(isNotNull(apiKeys.userPath))
    else if (query.userPath) where.push(or(eq(apiKeys.userPath, query.userPath), likeLiteralIn(apiKeys.userPath, `${likeLiteral(query.userPath)}/%`))!)
    const filter = where.length > 0 ? and(...where) : undefined
    const total = this.orm.select({ n: count() }).from(apiKeys).where(filter).get()?.n ?? 0
    const rows = this.orm.select().from(apiKeys).where(filter).orderBy(desc(apiKeys.createdAt), apiKeys.id).limit(query.limit).offset(query.offset).all()
    return { keys: rows.map(fromRow), total }
  }

  async get(id: string): Promise<ApiKeyRecord | undefined> {
    const row = this.orm.select().from(apiKeys).where(eq(apiKeys.id, id)).get()
    return row ? fromRow(row) : undefined
  }

  async insert(record: ApiKeyRecord): Promise<void> {
    this.orm
      .insert(apiKeys)
      .values({ ...record, allowedModels: record.allowedModels === null ? null : [...record.allowedModels] })
      .run()
  }

  async update(id: string, changes: ApiKeyChanges, updatedAt: string): Promise<ApiKeyRecord | undefined> {
    const { allowedModels, ...rest } = changes
    const set: Partial<typeof apiKeys.$inferInsert> = { ...rest, updatedAt }
    if (allowedModels !== undefined) set.allowedModels = allowedModels === null ? null : [...allowedModels]
    const row = this.orm
      .update(apiKeys)
      .set(set)
      .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
      .returning()
      .get()
    return row ? fromRow(row) : undefined
  }

  async revoke(id: string, revokedAt: string): Promise<{ record: ApiKeyRecord; changed: boolean } | undefined> {
    const revoke = this.db.transaction(() => {
      const revoked = this.orm
        .update(apiKeys)
        .set({ revokedAt, updatedAt: revokedAt })
        .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
        .returning()
        .get()
      if (revoked) return { record: fromRow(revoked), changed: true }
      const row = this.orm.select().from(apiKeys).where(eq(apiKeys.id, id)).get()
      return row ? { record: fromRow(row), changed: false } : undefined
    })
    return revoke.immediate()
  }
}

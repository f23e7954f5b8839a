/**
 * @module Managed API keys in PostgreSQL. Only the SHA-256 of a secret and a redacted form are written; the
 * secret itself never reaches this file.
 */
import { and, count, desc, eq, ilike, isNotNull, isNull, like, or, type SQL as Condition } from 'drizzle-orm'
import type { ApiKeyChanges, ApiKeyListQuery, ApiKeyPage, ApiKeyRecord, KeyStore } from '../types.ts'
import type { PgDb } from './client.ts'
import { apiKeys } from './schema.ts'

type Row = typeof apiKeys.$inferSelect

const fromRow = (row: Row): ApiKeyRecord => ({ ...row, allowedModels: row.allowedModels ?? null })

/** `%` and `_` in a search are literal characters, not wildcards. */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`)

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
    else if (query.userPath) where.push(or(eq(apiKeys.userPath, query.userPath), like(apiKeys.userPath, `${likeLiteral(query.userPath)}/%`))!)
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

  async insert(record: ApiKeyRecord): Promise<void> {
    await this.db.insert(apiKeys).values({ ...record, allowedModels: record.allowedModels === null ? null : [...record.allowedModels] })
  }

  async update(id: string, changes: ApiKeyChanges, updatedAt: string): Promise<ApiKeyRecord | undefined> {
    const set: Partial<typeof apiKeys.$inferInsert> = { updatedAt }
    if (changes.name !== undefined) set.name = changes.name
    if (changes.description !== undefined) set.description = changes.description
    if (changes.userPath !== undefined) set.userPath = changes.userPath
    if (changes.allowedModels !== undefined) set.allowedModels = changes.allowedModels === null ? null : [...changes.allowedModels]
    if (changes.dashboardEnabled !== undefined) set.dashboardEnabled = changes.dashboardEnabled
    if (changes.expiresAt !== undefined) set.expiresAt = changes.expiresAt
    const [row] = await this.db
      .update(apiKeys)
      .set(set)
      .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
      .returning()
    return row ? fromRow(row) : undefined
  }

  async revoke(id: string, revokedAt: string): Promise<{ record: ApiKeyRecord; changed: boolean } | undefined> {
    return this.db.transaction(async (tx) => {
      const [current] = await tx.select().from(apiKeys).where(eq(apiKeys.id, id)).for('update')
      if (!current) return undefined
      if (current.revokedAt !== null) return { record: fromRow(current), changed: false }
      const [row] = await tx.update(apiKeys).set({ revokedAt, updatedAt: revokedAt }).where(eq(apiKeys.id, id)).returning()
      return { record: fromRow(row!), changed: true }
    })
  }
}

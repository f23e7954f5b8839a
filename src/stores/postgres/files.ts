/**
 * @module The Files API's records in PostgreSQL. Every read and delete names the owner; ids are time-ordered, so the
 * list pages by id (OpenAI's `after`).
 */
import { and, asc, desc, eq, gt, isNotNull, isNull, lt, lte, or, type SQL } from 'drizzle-orm'
import type { FileStore } from '../types.ts'
import { withinUserPath } from '../user-path-filter.ts'
import type { PgDb } from './client.ts'
import { files } from './schema.ts'

const t = files

export function postgresFileStore(db: PgDb): FileStore {
  return {
    async insert(file) {
      await db.insert(t).values(file)
    },
    async get(id, owner) {
      const [row] = await db
        .select()
        .from(t)
        .where(and(eq(t.id, id), eq(t.owner, owner)))
      return row
    },
    async list(owner, query) {
      const where: (SQL | undefined)[] = [eq(t.owner, owner), or(isNull(t.expiresAt), gt(t.expiresAt, query.now))]
      if (query.purpose !== undefined) where.push(eq(t.purpose, query.purpose))
      if (query.after !== undefined) where.push(query.order === 'asc' ? gt(t.id, query.after) : lt(t.id, query.after))
      return db
        .select()
        .from(t)
        .where(and(...where))
        .orderBy(query.order === 'asc' ? asc(t.id) : desc(t.id))
        .limit(query.limit + 1)
    },
    async delete(id, owner) {
      const [row] = await db
        .delete(t)
        .where(and(eq(t.id, id), eq(t.owner, owner)))
        .returning()
      return row
    },
    async expired(now, batch) {
      return db
        .select()
        .from(t)
        .where(and(isNotNull(t.expiresAt), lte(t.expiresAt, now)))
        .limit(batch)
    },
    async forget(id) {
      await db.delete(t).where(eq(t.id, id))
    },
    async adminList(query) {
      const where: (SQL | undefined)[] = []
      if (query.userPath !== undefined && query.userPath !== '/') where.push(withinUserPath(t.userPath, query.userPath))
      if (query.owner !== undefined) where.push(eq(t.owner, query.owner))
      if (query.purpose !== undefined) where.push(eq(t.purpose, query.purpose))
      if (query.before !== undefined) where.push(lt(t.id, query.before))
      return db
        .select()
        .from(t)
        .where(where.length > 0 ? and(...where) : undefined)
        .orderBy(desc(t.id))
        .limit(query.limit)
    },
  }
}

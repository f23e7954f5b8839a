/**
 * @module The Uploads API's uploads and parts in SQLite. Reads and state changes name the owner.
 */
import type { Database } from 'bun:sqlite'
import { and, asc, eq, lte } from 'drizzle-orm'
import type { UploadStore } from '../types.ts'
import { orm } from './orm.ts'
import { uploadParts, uploads } from './schema.ts'

export function sqliteUploadStore(db: Database): UploadStore {
  const o = orm(db)
  const t = uploads
  return {
    async create(upload) {
      o.insert(t).values(upload).run()
    },
    async get(id, owner) {
      return o
        .select()
        .from(t)
        .where(and(eq(t.id, id), eq(t.owner, owner)))
        .get()
    },
    async addPart(part) {
      o.insert(uploadParts).values(part).run()
    },
    async parts(uploadId) {
      return o.select().from(uploadParts).where(eq(uploadParts.uploadId, uploadId)).orderBy(asc(uploadParts.id)).all()
    },
    async finish(id, owner, status, fileId) {
      const changed = o
        .update(t)
        .set({ status, fileId })
        .where(and(eq(t.id, id), eq(t.owner, owner), eq(t.status, 'pending')))
        .returning({ id: t.id })
        .all()
      return changed.length > 0
    },
    async expired(now, batch) {
      return o.select().from(t).where(lte(t.expiresAt, now)).limit(batch).all()
    },
    async forget(id) {
      o.transaction((tx) => {
        tx.delete(uploadParts).where(eq(uploadParts.uploadId, id)).run()
        tx.delete(t).where(eq(t.id, id)).run()
      })
    },
  }
}

/**
 * @module The Uploads API's uploads and parts in PostgreSQL. Reads and state changes name the owner.
 */
import { and, asc, eq, lte } from 'drizzle-orm'
import type { UploadStore } from '../types.ts'
import type { PgDb } from './client.ts'
import { uploadParts, uploads } from './schema.ts'

export function postgresUploadStore(db: PgDb): UploadStore {
  const t = uploads
  return {
    async create(upload) {
      await db.insert(t).values(upload)
    },
    async get(id, owner) {
      const [row] = await db
        .select()
        .from(t)
        .where(and(eq(t.id, id), eq(t.owner, owner)))
      return row
    },
    async addPart(part) {
      await db.insert(uploadParts).values(part)
    },
    async parts(uploadId) {
      return db.select().from(uploadParts).where(eq(uploadParts.uploadId, uploadId)).orderBy(asc(uploadParts.id))
    },
    async finish(id, owner, status, fileId) {
      const changed = await db
        .update(t)
        .set({ status, fileId })
        .where(and(eq(t.id, id), eq(t.owner, owner), eq(t.status, 'pending')))
        .returning({ id: t.id })
      return changed.length > 0
    },
    async expired(now, batch) {
      return db.select().from(t).where(lte(t.expiresAt, now)).limit(batch)
    },
    async forget(id) {
      await db.transaction(async (tx) => {
        await tx.delete(uploadParts).where(eq(uploadParts.uploadId, id))
        await tx.delete(t).where(eq(t.id, id))
      })
    },
  }
}

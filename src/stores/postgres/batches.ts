/**
 * @module Batches and their lines in PostgreSQL, shared by every replica. A line's claim and its end are each one
 * statement guarded by the line's state (and, for the end, by the claiming replica), and a line's end updates the
 * batch's counts in the same transaction, so two replicas can never both finish one line.
 */
import { and, asc, desc, eq, gte, inArray, isNotNull, lt, or, sql } from 'drizzle-orm'
import type { BatchLine, BatchLineResult, BatchRecord, BatchStatus } from '../../batches/batch-record.ts'
import type { BatchStore } from '../types.ts'
import { withinUserPath } from '../user-path-filter.ts'
import type { PgDb } from './client.ts'
import { batches, batchLines } from './schema.ts'

type BatchRow = typeof batches.$inferSelect
type LineRow = typeof batchLines.$inferSelect

export function postgresBatchStore(db: PgDb): BatchStore {
  const b = batches
  const l = batchLines
  return {
    async insert(batch, lines) {
      await db.transaction(async (tx) => {
        await tx.insert(b).values(batchRow(batch))
        for (let i = 0; i < lines.length; i += 500) await tx.insert(l).values(lines.slice(i, i + 500).map(lineRow))
      })
    },
    async get(id, principalId) {
      const [row] = await db
        .select()
        .from(b)
        .where(principalId === undefined ? eq(b.id, id) : and(eq(b.id, id), eq(b.principalId, principalId)))
      return row && batchRecord(row)
    },
    async list(query) {
      const filters = []
      if (query.principalId !== undefined) filters.push(eq(b.principalId, query.principalId))
      if (query.userPath !== undefined && query.userPath !== '/') filters.push(withinUserPath(b.userPath, query.userPath))
      if (query.after) {
        const [after] = await db.select({ createdAt: b.createdAt, id: b.id }).from(b).where(eq(b.id, query.after))
        if (after) filters.push(or(lt(b.createdAt, after.createdAt), and(eq(b.createdAt, after.createdAt), lt(b.id, after.id))))
      }
      const rows = await db
        .select()
        .from(b)
        .where(and(...filters))
        .orderBy(desc(b.createdAt), desc(b.id))
        .limit(query.limit)
      return rows.map(batchRecord)
    },
    async withStatus(statuses, limit) {
      const rows = await db
        .select()
        .from(b)
        .where(inArray(b.status, [...statuses]))
        .orderBy(asc(b.createdAt))
        .limit(limit)
      return rows.map(batchRecord)
    },
    async transition(id, from, changes) {
      const [row] = await db
        .update(b)
        .set(batchChanges(changes))
        .where(and(eq(b.id, id), inArray(b.status, [...from])))
        .returning()
      return row && batchRecord(row)
    },
    async lines(batchId, query) {
      const filters = [eq(l.batchId, batchId), gte(l.lineIndex, query.fromIndex ?? 0)]
      if (query.states) filters.push(inArray(l.state, [...query.states]))
      const rows = await db
        .select()
        .from(l)
        .where(and(...filters))
        .orderBy(asc(l.lineIndex))
        .limit(query.limit)
      return rows.map(batchLine)
    },
    async claimLine(batchId, index, by, atMs, from = 'pending') {
      const claimed = await db
        .update(l)
        .set({ state: 'claimed', claimedBy: by, claimedAt: atMs })
        .where(and(eq(l.batchId, batchId), eq(l.lineIndex, index), eq(l.state, from)))
        .returning({ index: l.lineIndex })
      return claimed.length > 0
    },
    async submitLines(batchId, indexes, by, target, job) {
      await db
        .update(l)
        .set({ state: 'submitted', target, providerJob: job })
        .where(and(eq(l.batchId, batchId), inArray(l.lineIndex, [...indexes]), eq(l.state, 'claimed'), eq(l.claimedBy, by)))
    },
    async recoverClaimed(batchId, result) {
      return db.transaction(async (tx) => {
        await tx
          .update(l)
          .set({ state: 'submitted' })
          .where(and(eq(l.batchId, batchId), eq(l.state, 'claimed'), isNotNull(l.providerJob)))
        const failed = await tx
          .update(l)
          .set({ state: 'failed', result })
          .where(and(eq(l.batchId, batchId), eq(l.state, 'claimed')))
          .returning({ index: l.lineIndex, estimate: l.estimateMicro })
        if (failed.length > 0)
          await tx
            .update(b)
            .set({ failed: sql`${b.failed} + ${failed.length}` })
            .where(eq(b.id, batchId))
        return ended(failed)
      })
    },
    async finishLine(batchId, index, by, finished) {
      return db.transaction(async (tx) => {
        const done = await tx
          .update(l)
          .set({ state: finished.state, result: finished.result, auditId: finished.auditId, costUsd: finished.costUsd })
          .where(and(eq(l.batchId, batchId), eq(l.lineIndex, index), eq(l.state, 'claimed'), eq(l.claimedBy, by)))
          .returning({ index: l.lineIndex })
        if (done.length === 0) return false
        const counted = finished.state === 'succeeded' ? { completed: sql`${b.completed} + 1` } : { failed: sql`${b.failed} + 1` }
        await tx
          .update(b)
          .set({ ...counted, costUsd: sql`${b.costUsd} + ${finished.costUsd}` })
          .where(eq(b.id, batchId))
        return true
      })
    },
    async failLines(batchId, states, result) {
      return db.transaction(async (tx) => {
        const done = await tx
          .update(l)
          .set({ state: 'failed', result })
          .where(and(eq(l.batchId, batchId), inArray(l.state, [...states])))
          .returning({ index: l.lineIndex, estimate: l.estimateMicro })
        if (done.length > 0)
          await tx
            .update(b)
            .set({ failed: sql`${b.failed} + ${done.length}` })
            .where(eq(b.id, batchId))
        return ended(done)
      })
    },
  }
}

function batchRow(batch: BatchRecord): typeof batches.$inferInsert {
  const { owner, requestCounts, ...rest } = batch
  return {
    ...rest,
    principalId: owner.principalId,
    authMethod: owner.method,
    keyId: owner.keyId,
    keyHash: owner.keyHash,
    userPath: owner.userPath,
    total: requestCounts.total,
    completed: requestCounts.completed,
    failed: requestCounts.failed,
  }
}

function batchChanges(changes: Partial<BatchRecord>): Partial<typeof batches.$inferInsert> {
  const { owner: _owner, requestCounts: _counts, id: _id, ...rest } = changes
  return rest
}

function batchRecord(row: BatchRow): BatchRecord {
  const { principalId, authMethod, keyId, keyHash, userPath, total, completed, failed, errors, status, ...rest } = row
  return {
    ...rest,
    status: status as BatchStatus,
    owner: { principalId, method: authMethod as BatchRecord['owner']['method'], keyId, keyHash, userPath },
    requestCounts: { total, completed, failed },
    errors: errors as BatchRecord['errors'],
  }
}

function lineRow(line: BatchLine): typeof batchLines.$inferInsert {
  const { index, ...rest } = line
  return { ...rest, lineIndex: index }
}

function batchLine(row: LineRow): BatchLine {
  const { lineIndex, state, result, ...rest } = row
  return { ...rest, index: lineIndex, state: state as BatchLine['state'], result: (result ?? null) as BatchLineResult | null }
}

const ended = (lines: { estimate: number }[]) => ({ lines: lines.length, estimateMicro: lines.reduce((sum, l) => sum + l.estimate, 0) })

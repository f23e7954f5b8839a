/**
 * @module Batches and their lines in SQLite. A line's claim and its end are each one statement guarded by the
 * line's state, and a line's end updates the batch's counts in the same transaction, so the counts are the lines'.
 */
import type { Database } from 'bun:sqlite'
import { and, asc, desc, eq, gte, inArray, isNotNull, lt, or, sql } from 'drizzle-orm'
import type { BatchLine, BatchLineResult, BatchRecord, BatchStatus } from '../../batches/batch-record.ts'
import type { BatchStore } from '../types.ts'
import { withinUserPath } from '../user-path-filter.ts'
import { orm } from './orm.ts'
import { batches, batchLines } from './schema.ts'

type BatchRow = typeof batches.$inferSelect
type LineRow = typeof batchLines.$inferSelect

export function sqliteBatchStore(db: Database): BatchStore {
  const o = orm(db)
  const b = batches
  const l = batchLines
  return {
    async insert(batch, lines) {
      o.transaction((tx) => {
        tx.insert(b).values(batchRow(batch)).run()
        // 999 bound parameters per statement at most in older SQLite builds: 50 rows of 13 columns.
        for (let i = 0; i < lines.length; i += 50)
          tx.insert(l)
            .values(lines.slice(i, i + 50).map(lineRow))
            .run()
      })
    },
    async get(id, principalId) {
      const row = o
        .select()
        .from(b)
        .where(principalId === undefined ? eq(b.id, id) : and(eq(b.id, id), eq(b.principalId, principalId)))
        .get()
      return row && batchRecord(row)
    },
    async list(query) {
      const filters = []
      if (query.principalId !== undefined) filters.push(eq(b.principalId, query.principalId))
      if (query.userPath !== undefined && query.userPath !== '/') filters.push(withinUserPath(b.userPath, query.userPath))
      if (query.after) {
        const after = o.select({ createdAt: b.createdAt, id: b.id }).from(b).where(eq(b.id, query.after)).get()
        if (after) filters.push(or(lt(b.createdAt, after.createdAt), and(eq(b.createdAt, after.createdAt), lt(b.id, after.id))))
      }
      const rows = o
        .select()
        .from(b)
        .where(and(...filters))
        .orderBy(desc(b.createdAt), desc(b.id))
        .limit(query.limit)
        .all()
      return rows.map(batchRecord)
    },
    async withStatus(statuses, limit) {
      return o
        .select()
        .from(b)
        .where(inArray(b.status, [...statuses]))
        .orderBy(asc(b.createdAt))
        .limit(limit)
        .all()
        .map(batchRecord)
    },
    async transition(id, from, changes) {
      const row = o
        .update(b)
        .set(batchChanges(changes))
        .where(and(eq(b.id, id), inArray(b.status, [...from])))
        .returning()
        .get()
      return row && batchRecord(row)
    },
    async lines(batchId, query) {
      const filters = [eq(l.batchId, batchId), gte(l.lineIndex, query.fromIndex ?? 0)]
      if (query.states) filters.push(inArray(l.state, [...query.states]))
      return o
        .select()
        .from(l)
        .where(and(...filters))
        .orderBy(asc(l.lineIndex))
        .limit(query.limit)
        .all()
        .map(batchLine)
    },
    async claimLine(batchId, index, by, atMs, from = 'pending') {
      const claimed = o
        .update(l)
        .set({ state: 'claimed', claimedBy: by, claimedAt: atMs })
        .where(and(eq(l.batchId, batchId), eq(l.lineIndex, index), eq(l.state, from)))
        .returning({ index: l.lineIndex })
        .all()
      return claimed.length > 0
    },
    async submitLines(batchId, indexes, by, target, job) {
      o.update(l)
        .set({ state: 'submitted', target, providerJob: job })
        .where(and(eq(l.batchId, batchId), inArray(l.lineIndex, [...indexes]), eq(l.state, 'claimed'), eq(l.claimedBy, by)))
        .run()
    },
    async recoverClaimed(batchId, result) {
      return o.transaction((tx) => {
        tx.update(l)
          .set({ state: 'submitted' })
          .where(and(eq(l.batchId, batchId), eq(l.state, 'claimed'), isNotNull(l.providerJob)))
          .run()
        const failed = tx
          .update(l)
          .set({ state: 'failed', result })
          .where(and(eq(l.batchId, batchId), eq(l.state, 'claimed')))
          .returning({ index: l.lineIndex, estimate: l.estimateMicro })
          .all()
        if (failed.length > 0)
          tx.update(b)
            .set({ failed: sql`${b.failed} + ${failed.length}` })
            .where(eq(b.id, batchId))
            .run()
        return ended(failed)
      })
    },
    async finishLine(batchId, index, by, finished) {
      return o.transaction((tx) => {
        const done = tx
          .update(l)
          .set({ state: finished.state, result: finished.result, auditId: finished.auditId, costUsd: finished.costUsd })
          .where(and(eq(l.batchId, batchId), eq(l.lineIndex, index), eq(l.state, 'claimed'), eq(l.claimedBy, by)))
          .returning({ index: l.lineIndex })
          .all()
        if (done.length === 0) return false
        const counted = finished.state === 'succeeded' ? { completed: sql`${b.completed} + 1` } : { failed: sql`${b.failed} + 1` }
        tx.update(b)
          .set({ ...counted, costUsd: sql`${b.costUsd} + ${finished.costUsd}` })
          .where(eq(b.id, batchId))
          .run()
        return true
      })
    },
    async failLines(batchId, states, result) {
      return o.transaction((tx) => {
        const done = tx
          .update(l)
          .set({ state: 'failed', result })
          .where(and(eq(l.batchId, batchId), inArray(l.state, [...states])))
          .returning({ index: l.lineIndex, estimate: l.estimateMicro })
          .all()
        if (done.length > 0)
          tx.update(b)
            .set({ failed: sql`${b.failed} + ${done.length}` })
            .where(eq(b.id, batchId))
            .run()
        return ended(done)
      })
    },
  }
}

function batchRow(batch: BatchRecord): typeof batches.$inferInsert {
  const { owner, requestCounts, errors, ...rest } = batch
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
    errors,
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

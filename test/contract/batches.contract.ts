/**
 * @module The batch store contract (`BatchStore`, src/stores/types.ts), the same assertions on every backend: a
 * batch and its lines round trip; reads are owner-only; a line is claimed once, finished only by the replica that
 * claimed it and only while claimed, and each end counts once in the batch; a takeover sends a line with a provider
 * job back to waiting for it and fails one without; bulk failures count and give back their estimates.
 * A backend joins with one line in contract.test.ts.
 */
import { afterEach, describe, expect, test } from 'bun:test'
import type { BatchLine, BatchRecord } from '../../src/batches/batch-record.ts'
import type { Stores } from '../../src/stores/types.ts'

const T0 = 1_800_000_000

function batchRecord(id: string, extra: Partial<BatchRecord> = {}): BatchRecord {
  return {
    id,
    owner: { principalId: 'key_alice', method: 'managed_key', keyId: 'key_alice', keyHash: 'ab'.repeat(32), userPath: '/acme/team-a' },
    labels: ['nightly'],
    endpoint: '/v1/chat/completions',
    inputFileId: 'file-1',
    completionWindow: '24h',
    status: 'in_progress',
    outputFileId: null,
    errorFileId: null,
    createdAt: T0,
    inProgressAt: T0,
    expiresAt: T0 + 86_400,
    finalizingAt: null,
    completedAt: null,
    failedAt: null,
    expiredAt: null,
    cancellingAt: null,
    cancelledAt: null,
    requestCounts: { total: 3, completed: 0, failed: 0 },
    metadata: { job: 'x' },
    outputExpiresAfter: 3600,
    errors: null,
    costUsd: 0,
    budgetKeys: [{ key: 'budget:b1:0', ttlMs: 1000 }],
    ...extra,
  }
}

function lineOf(batchId: string, index: number, extra: Partial<BatchLine> = {}): BatchLine {
  return {
    batchId,
    index,
    customId: `c${index}`,
    endpointId: 'chat.completions',
    body: { model: 'openai/gpt-4o', messages: [{ role: 'user', content: `line ${index}` }] },
    state: 'pending',
    target: null,
    providerJob: null,
    claimedBy: null,
    claimedAt: null,
    auditId: null,
    result: null,
    costUsd: 0,
    estimateMicro: 100 + index,
    ...extra,
  }
}

const answer = (statusCode = 200) => ({ kind: 'response' as const, statusCode, requestId: 'r', body: { ok: statusCode } })

export function batchesContract(backend: string, open: () => Promise<Stores>): void {
  describe(`batch store contract: ${backend}`, () => {
    const opened: Stores[] = []
    afterEach(async () => {
      for (const s of opened.splice(0)) await s.close()
    })
    const fresh = async () => {
      const s = await open()
      opened.push(s)
      return s.batches
    }

    test('a batch and its lines round trip; another principal reads nothing', async () => {
      const batches = await fresh()
      const batch = batchRecord('batch_1')
      await batches.insert(batch, [lineOf('batch_1', 0), lineOf('batch_1', 1), lineOf('batch_1', 2)])
      expect(await batches.get('batch_1', 'key_alice')).toEqual(batch)
      expect(await batches.get('batch_1')).toEqual(batch)
      expect(await batches.get('batch_1', 'key_bob')).toBeUndefined()
      expect(await batches.lines('batch_1', { limit: 10 })).toEqual([lineOf('batch_1', 0), lineOf('batch_1', 1), lineOf('batch_1', 2)])
      expect((await batches.lines('batch_1', { fromIndex: 1, limit: 1 })).map((l) => l.index)).toEqual([1])
    })

    test('lists newest first, by owner or subtree, after a cursor', async () => {
      const batches = await fresh()
      await batches.insert(batchRecord('batch_a', { createdAt: T0 }), [])
      await batches.insert(batchRecord('batch_b', { createdAt: T0 + 1 }), [])
      await batches.insert(batchRecord('batch_c', { createdAt: T0 + 2, owner: { ...batchRecord('x').owner, principalId: 'key_bob', userPath: '/globex' } }), [])
      expect((await batches.list({ limit: 10 })).map((b) => b.id)).toEqual(['batch_c', 'batch_b', 'batch_a'])
      expect((await batches.list({ principalId: 'key_alice', limit: 10 })).map((b) => b.id)).toEqual(['batch_b', 'batch_a'])
      expect((await batches.list({ userPath: '/acme', limit: 10 })).map((b) => b.id)).toEqual(['batch_b', 'batch_a'])
      // `_` is allowed in a user path and is a LIKE wildcard: the subtree of /team_a is not /teamXa's.
      await batches.insert(batchRecord('batch_d', { createdAt: T0 + 3, owner: { ...batchRecord('x').owner, userPath: '/team_a/one' } }), [])
      await batches.insert(batchRecord('batch_e', { createdAt: T0 + 4, owner: { ...batchRecord('x').owner, userPath: '/teamXa/two' } }), [])
      expect((await batches.list({ userPath: '/team_a', limit: 10 })).map((b) => b.id)).toEqual(['batch_d'])
      expect((await batches.list({ after: 'batch_b', limit: 10 })).map((b) => b.id)).toEqual(['batch_a'])
      expect((await batches.withStatus(['in_progress'], 10)).map((b) => b.id)).toEqual(['batch_a', 'batch_b', 'batch_c', 'batch_d', 'batch_e'])
    })

    test('a transition applies only from the statuses given', async () => {
      const batches = await fresh()
      await batches.insert(batchRecord('batch_t'), [])
      expect(await batches.transition('batch_t', ['validating'], { status: 'failed' })).toBeUndefined()
      const cancelling = await batches.transition('batch_t', ['in_progress'], { status: 'cancelling', cancellingAt: T0 + 5 })
      expect(cancelling).toMatchObject({ status: 'cancelling', cancellingAt: T0 + 5, requestCounts: { total: 3, completed: 0, failed: 0 } })
    })

    test('a line is claimed once and finished only by its claimer while claimed; each end counts once', async () => {
      const batches = await fresh()
      await batches.insert(batchRecord('batch_l'), [lineOf('batch_l', 0), lineOf('batch_l', 1), lineOf('batch_l', 2)])
      expect(await batches.claimLine('batch_l', 0, 'replica-a', 1)).toBe(true)
      expect(await batches.claimLine('batch_l', 0, 'replica-b', 2)).toBe(false)
      const done = { state: 'succeeded' as const, result: answer(), auditId: 'audit-1', costUsd: 0.25 }
      expect(await batches.finishLine('batch_l', 0, 'replica-b', done)).toBe(false)
      expect(await batches.finishLine('batch_l', 0, 'replica-a', done)).toBe(true)
      expect(await batches.finishLine('batch_l', 0, 'replica-a', done)).toBe(false)
      expect(await batches.claimLine('batch_l', 1, 'replica-a', 3)).toBe(true)
      expect(await batches.finishLine('batch_l', 1, 'replica-a', { state: 'failed', result: answer(400), auditId: 'audit-2', costUsd: 0 })).toBe(true)
      const batch = await batches.get('batch_l')
      expect(batch?.requestCounts).toEqual({ total: 3, completed: 1, failed: 1 })
      expect(batch?.costUsd).toBeCloseTo(0.25, 9)
      const [first] = await batches.lines('batch_l', { limit: 1 })
      expect(first).toMatchObject({ state: 'succeeded', claimedBy: 'replica-a', auditId: 'audit-1', result: answer(), costUsd: 0.25 })
      expect((await batches.lines('batch_l', { states: ['pending'], limit: 10 })).map((l) => l.index)).toEqual([2])
    })

    test('a takeover: a claimed line with a provider job waits for it again, one without fails; estimates come back', async () => {
      const batches = await fresh()
      await batches.insert(batchRecord('batch_r'), [lineOf('batch_r', 0), lineOf('batch_r', 1), lineOf('batch_r', 2)])
      for (const i of [0, 1]) expect(await batches.claimLine('batch_r', i, 'dead-replica', 1)).toBe(true)
      await batches.submitLines('batch_r', [1], 'dead-replica', 'oai', '{"id":"job-1","detail":{}}')
      expect(await batches.claimLine('batch_r', 1, 'dead-replica', 2, 'submitted')).toBe(true)
      const interrupted = { kind: 'error' as const, code: 'batch_line_interrupted', message: 'stopped' }
      expect(await batches.recoverClaimed('batch_r', interrupted)).toEqual({ lines: 1, estimateMicro: 100 })
      const lines = await batches.lines('batch_r', { limit: 10 })
      expect(lines.map((l) => [l.index, l.state])).toEqual([
        [0, 'failed'],
        [1, 'submitted'],
        [2, 'pending'],
      ])
      expect(lines[0]!.result).toEqual(interrupted)
      expect(lines[1]).toMatchObject({ target: 'oai', providerJob: '{"id":"job-1","detail":{}}' })
      expect(await batches.failLines('batch_r', ['pending'], { kind: 'error', code: 'batch_cancelled', message: 'x' })).toEqual({ lines: 1, estimateMicro: 102 })
      expect((await batches.get('batch_r'))?.requestCounts).toEqual({ total: 3, completed: 0, failed: 2 })
    })
  })
}

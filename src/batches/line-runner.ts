/**
 * @module Runs one batch line the way a live request runs: a request context for the line's endpoint, with the
 * batch owner's credential checked again now (a key revoked or expired since fails its lines with the 401 a live
 * request would get), the batch's user path and labels plus `batch:<id>`, through the same pipeline: model
 * resolution, model access, the workflow's rewriters and guardrails, rate limits, budgets, usage and the audit entry
 * (which names the batch and the line). The gateway's own rate limiter refusing a line (no upstream was called) is
 * waited out and the line tried again; any other answer is the line's result.
 */
import { parseJsonBody } from '../http/ingress.ts'
import { ANONYMOUS, MASTER, principalOf, type Authentication } from '../keys/authenticator.ts'
import type { KeyDirectory } from '../keys/key-directory.ts'
import { USER_PATH_HEADER } from '../keys/user-path.ts'
import type { Logger } from '../log/logger.ts'
import type { RequestsEnd } from '../pipeline/context-abort.ts'
import { type EndpointId, RequestContext } from '../pipeline/context.ts'
import type { Outcome } from '../pipeline/types.ts'
import { endpoint, ENDPOINTS } from '../protocols/endpoints.ts'
import type { FinishedBatchLine } from '../stores/types.ts'
import type { BatchLine, BatchOwner, BatchRecord } from './batch-record.ts'
import type { LineMode, LineRunner } from './executor.ts'

export interface LineRunnerDeps {
  keys: KeyDirectory
  /** Runs a request through its workflow's pipeline (Gateway.runBatchLine: the labels are the batch's, not headers'). */
  run: (ctx: RequestContext) => Promise<Response>
  log: Logger
  requestsEnd?: RequestsEnd
}

/** Waits for a rate limit at most this long at a time, and this many times per line. */
const MAX_RATE_WAIT_S = 60
const MAX_RATE_WAITS = 100
/** The outcome follows the body's end; a completion waiting for a token count takes about a second at most. */
const OUTCOME_WAIT_MS = 10_000

export function gatewayLineRunner(deps: LineRunnerDeps): LineRunner {
  return async (batch, line, mode) => {
    for (let waits = 0; ; waits++) {
      const ran = await runOnce(deps, batch, line, mode)
      const retryAfter = ran.refusedByLimiter
      if (ran.handedOver) return { kind: 'handedOver', ...ran.handedOver }
      if (retryAfter === undefined || waits >= MAX_RATE_WAITS) return { kind: 'finished', finished: ran.finished }
      await Bun.sleep(Math.min(retryAfter, MAX_RATE_WAIT_S) * 1000)
    }
  }
}

interface RanOnce {
  finished: FinishedBatchLine
  refusedByLimiter?: number
  handedOver?: { providerName: string; body: Record<string, unknown> }
}

/**
 * In the route stage's place: a provider batch API's answer (replayed, so the answer goes through the same
 * answer hooks, usage, budgets and audit as a live one), or, when the target's provider has a batch API, the line
 * as the provider would get it, kept to be handed over (nothing is metered and no audit entry is made for it: the
 * provider's answer gets that).
 */
function routeOf(mode: LineMode, handedOver: (line: { providerName: string; body: Record<string, unknown> }) => void) {
  return (ctx: RequestContext): Response | undefined => {
    if (mode.kind === 'replay') return new Response(JSON.stringify(mode.answer.body), { status: mode.answer.statusCode, headers: { 'content-type': 'application/json' } })
    const target = ctx.target
    if (!target || !mode.handOver?.(target.providerName, ctx.endpoint)) return undefined
    ctx.batchLine!.handedOver = true
    ctx.auditSuppressed = true
    handedOver({ providerName: target.providerName, body: { ...ctx.body, model: target.model } })
    return new Response('{}', { headers: { 'content-type': 'application/json' } })
  }
}

async function runOnce(deps: LineRunnerDeps, batch: BatchRecord, line: BatchLine, mode: LineMode): Promise<RanOnce> {
  const row = endpoint(line.endpointId as EndpointId)
  const headers = new Headers({ 'content-type': 'application/json', 'x-request-id': `${batch.id}:${line.index}` })
  if (batch.owner.userPath) headers.set(USER_PATH_HEADER, batch.owner.userPath)
  let outcome: (value: Outcome | undefined) => void = () => {}
  const finished = new Promise<Outcome | undefined>((resolve) => (outcome = resolve))
  const ctx = new RequestContext({
    endpoint: row.id as EndpointId,
    method: 'POST',
    path: row.path,
    headers,
    clientIp: '',
    log: deps.log,
    clientSignal: new AbortController().signal,
    requestsEnd: deps.requestsEnd,
    authentication: authenticationOf(batch.owner, deps.keys),
  })
  ctx.labels = [...batch.labels, `batch:${batch.id}`]
  let handedOver: RanOnce['handedOver']
  ctx.batchLine = {
    batchId: batch.id,
    customId: line.customId,
    finished: outcome,
    route: routeOf(mode, (kept) => (handedOver = kept)),
    batchPriced: mode.kind === 'replay',
    rateCounted: mode.kind === 'replay',
    budgetHeld: batch.budgetKeys !== null,
  }
  const text = JSON.stringify(line.body)
  parseJsonBody(ctx, text, Buffer.byteLength(text))
  const response = await deps.run(ctx)
  const answer = await response.text()
  const timeout = setTimeout(() => outcome(undefined), OUTCOME_WAIT_MS)
  const done = await finished
  clearTimeout(timeout)
  let body: unknown = answer
  try {
    body = JSON.parse(answer)
  } catch {}
  const ok = response.status >= 200 && response.status < 300
  const result: FinishedBatchLine = {
    state: ok ? 'succeeded' : 'failed',
    result: { kind: 'response', statusCode: response.status, requestId: ctx.requestId, body },
    auditId: ctx.id,
    costUsd: done?.usageRecord?.cost_usd ?? 0,
  }
  // The gateway's own limiter answered (no upstream was called): the line may wait and go again.
  const limited = response.status === 429 && ctx.attempts.length === 0 && ctx.error?.code === 'rate_limit_exceeded'
  return { finished: result, handedOver, refusedByLimiter: limited ? Number(response.headers.get('retry-after') ?? 1) || 1 : undefined }
}

/** The owner's credential as it stands now: a managed key from the key snapshot (revoked or expired: refused). */
function authenticationOf(owner: BatchOwner, keys: KeyDirectory): Authentication {
  if (owner.method === 'master_key') return { kind: 'authenticated', principal: MASTER }
  if (owner.method === 'none') return { kind: 'authenticated', principal: ANONYMOUS }
  const key = owner.keyHash ? keys.lookup(owner.keyHash) : undefined
  if (!key || !owner.keyHash) return { kind: 'rejected', failure: 'unknown', reason: `the batch's API key ${owner.keyId ?? ''} no longer exists` }
  if (key.revokedAt !== null) return { kind: 'rejected', failure: 'revoked', reason: `API key ${key.id} was revoked at ${key.revokedAt}` }
  if (key.expiresAt !== null && Date.parse(key.expiresAt) <= keys.now()) return { kind: 'rejected', failure: 'expired', reason: `API key ${key.id} expired at ${key.expiresAt}` }
  return { kind: 'authenticated', key, principal: principalOf(key, owner.keyHash) }
}

/** The endpoint row a batchable url names. */
export function batchEndpointId(url: string): string {
  const row = ENDPOINTS.find((e) => e.method === 'POST' && e.path === url)
  if (!row) throw new Error(`no endpoint row serves ${url}`)
  return row.id
}

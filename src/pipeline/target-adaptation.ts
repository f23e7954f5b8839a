/**
 * @module The body of one upstream attempt. The rewrite stage prepares `ctx.body` for the resolved target; when
 * the route stage tries another (a failover target, a virtual model's other target), a rewriter that adapts the
 * body to its target (the parameter normaliser: output limits, a provider's parameter rules) says what that target
 * needs instead. The adapted body goes to that attempt only, and a RequestRevisionSnapshot records it: its detail
 * names the target and the `attempts` (their `seq`) that were sent it.
 */
import { BODY_CAPTURE_LIMIT_BYTES } from '../audit/capture-limit.ts'
import type { ResolvedTarget } from '../providers/types.ts'
import { type RequestContext, requestSlot } from './context.ts'
import type { RequestRevisionSnapshot } from './snapshots.ts'

/** What a rewriter leaves on the context so each attempt's target gets a body made for it. */
export interface TargetAdaptation {
  /** The rewriter, named in the attempt's revision. */
  rewriter: string
  /** The selector `ctx.body` was prepared for. */
  preparedFor: string
  /** `body` made for `target`, and the detail of what was done; undefined when it suits `target` as it is. */
  adapt(body: Record<string, unknown>, target: ResolvedTarget): { body: Record<string, unknown>; detail: Record<string, unknown> } | undefined
}

interface AdaptedBody {
  body: Record<string, unknown>
  /** The revision that recorded it (its detail's `attempts` grows with each retry of the target). */
  attempts?: number[]
}

/** The bodies already made for this request's other targets, by selector. */
const adaptedBodies = requestSlot<Map<string, AdaptedBody>>('target-adaptation')

/** The body for the next attempt, which goes to `target`; `ctx.body` unless a rewriter adapts it for that target. */
export function bodyForAttempt(ctx: RequestContext, target: ResolvedTarget): Record<string, unknown> {
  const adaptation = ctx.targetAdaptation
  if (!adaptation || adaptation.preparedFor === target.selector) return ctx.body
  let bodies = ctx.state(adaptedBodies)
  if (!bodies) ctx.setState(adaptedBodies, (bodies = new Map()))
  // The attempt this body goes to gets the next seq (src/providers/upstream-fetch.ts).
  const seq = ctx.attempts.length + 1
  const known = bodies.get(target.selector)
  if (known) {
    known.attempts?.push(seq)
    return known.body
  }
  const adapted = adaptation.adapt(ctx.body, target)
  if (!adapted) {
    bodies.set(target.selector, { body: ctx.body })
    return ctx.body
  }
  const attempts = [seq]
  const text = JSON.stringify(adapted.body)
  const bytesAfter = Buffer.byteLength(text)
  const revision: RequestRevisionSnapshot = {
    seq: ctx.revisions.length + 1,
    rewriter: adaptation.rewriter,
    bytes_before: Buffer.byteLength(JSON.stringify(ctx.body)),
    bytes_after: bytesAfter,
    // Parameters, not the prompt: no prompt tokens saved.
    tokens_saved: 0,
    ...(ctx.capture.bodies && bytesAfter <= BODY_CAPTURE_LIMIT_BYTES ? { body: adapted.body } : {}),
    detail: { ...adapted.detail, target: target.selector, attempts },
  }
  ctx.revisions.push(revision)
  bodies.set(target.selector, { body: adapted.body, attempts })
  return adapted.body
}

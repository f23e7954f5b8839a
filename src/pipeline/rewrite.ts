/**
 * @module The request-rewriter chain's bookkeeping, shared by every rewriter plugin: one
 * RequestRevisionSnapshot per rewriter that ran (sizes before and after, prompt tokens saved counted with the
 * tokenizer as the endpoint's API counts them (`promptTokens` of its shape), the body after it when body logging is
 * on and within the capture limit). The client's original body stays untouched in `ctx.originalBody`.
 */
import { endpoint } from '../protocols/endpoints.ts'
import { BODY_CAPTURE_LIMIT_BYTES } from '../audit/capture-limit.ts'
import type { RequestContext } from './context.ts'
import { CONTINUE, type Decision } from './types.ts'

export type RewriteResult = { body: Record<string, unknown>; detail?: unknown } | { unchanged: true; detail?: unknown }

/** Size of the current body; the client's own bytes while nothing changed it yet. */
function currentSize(ctx: RequestContext): number {
  if (ctx.body === ctx.originalBody && ctx.originalBodyText) return Buffer.byteLength(ctx.originalBodyText)
  return Buffer.byteLength(JSON.stringify(ctx.body))
}

/**
 * Runs one rewriter and records its revision. Synchronous when the body is unchanged (most requests); a promise
 * only when it changed, for the tokens saved counted on the tokenizer thread.
 */
export function applyRewrite(ctx: RequestContext, rewriter: string, rewrite: (body: Record<string, unknown>) => RewriteResult): Promise<void> | undefined {
  const before = ctx.body
  const bytesBefore = currentSize(ctx)
  const result = rewrite(before)
  const seq = ctx.revisions.length + 1
  if ('unchanged' in result) {
    ctx.revisions.push({
      seq,
      rewriter,
      bytes_before: bytesBefore,
      bytes_after: bytesBefore,
      tokens_saved: 0,
      no_change: true,
      ...(result.detail !== undefined ? { detail: result.detail } : {}),
    })
    return undefined
  }
  const text = JSON.stringify(result.body)
  const bytesAfter = Buffer.byteLength(text)
  ctx.body = result.body
  const countPrompt = endpoint(ctx.endpoint).api.promptTokens ?? noTokens
  return Promise.all([countPrompt(before), countPrompt(result.body)]).then(([tokensBefore, tokensAfter]) => {
    ctx.revisions.push({
      seq,
      rewriter,
      bytes_before: bytesBefore,
      bytes_after: bytesAfter,
      tokens_saved: Math.max(0, tokensBefore - tokensAfter),
      ...(ctx.capture.bodies && bytesAfter <= BODY_CAPTURE_LIMIT_BYTES ? { body: result.body } : {}),
      ...(result.detail !== undefined ? { detail: result.detail } : {}),
    })
  })
}

/** An API whose input is not text saves no tokens. */
const noTokens = () => Promise.resolve(0)

/** A rewriter's `before` answer after `applyRewrite`: CONTINUE at once, or once the revision is recorded. */
export function continueAfter(pending: Promise<void> | undefined): Decision | Promise<Decision> {
  return pending ? pending.then(() => CONTINUE) : CONTINUE
}

/**
 * @module The request-rewriter chain's bookkeeping, shared by every rewriter plugin: one
 * RequestRevisionSnapshot per rewriter that ran (sizes before and after, prompt tokens saved counted with the
 * tokenizer in the endpoint's own protocol, the body after it when body logging is on and within the capture limit). The client's original
 * body stays untouched in `ctx.originalBody`.
 */
import { countPromptTokens } from '../protocols/prompt-tokens.ts'
import { BODY_CAPTURE_LIMIT_BYTES } from '../audit/capture-limit.ts'
import type { RequestContext } from './context.ts'

export type RewriteResult = { body: Record<string, unknown>; detail?: unknown } | { unchanged: true; detail?: unknown }

/** Size of the current body; the client's own bytes while nothing changed it yet. */
function currentSize(ctx: RequestContext): number {
  if (ctx.body === ctx.originalBody && ctx.originalBodyText) return Buffer.byteLength(ctx.originalBodyText)
  return Buffer.byteLength(JSON.stringify(ctx.body))
}

export async function applyRewrite(ctx: RequestContext, rewriter: string, rewrite: (body: Record<string, unknown>) => RewriteResult): Promise<void> {
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
    return
  }
  const text = JSON.stringify(result.body)
  const bytesAfter = Buffer.byteLength(text)
  ctx.body = result.body
  const [tokensBefore, tokensAfter] = await Promise.all([countPromptTokens(ctx.endpoint, before), countPromptTokens(ctx.endpoint, result.body)])
  const tokensSaved = Math.max(0, tokensBefore - tokensAfter)
  ctx.revisions.push({
    seq,
    rewriter,
    bytes_before: bytesBefore,
    bytes_after: bytesAfter,
    tokens_saved: tokensSaved,
    ...(ctx.capture.bodies && bytesAfter <= BODY_CAPTURE_LIMIT_BYTES ? { body: result.body } : {}),
    ...(result.detail !== undefined ? { detail: result.detail } : {}),
  })
}

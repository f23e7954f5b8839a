/**
 * @module The Responses API served over chat for upstreams without a native Responses API. Hosted tools the
 * target cannot run are dropped from the translated request; the answer says so in `x-gateway-dropped-tools`
 * and the audit entry in a request revision (`responses-translation`, detail `dropped_tools`).
 */
import { GatewayError } from '../../errors/gateway-error.ts'
import { requestSlot, type RequestContext } from '../../pipeline/context.ts'
import type { IngressProtocol } from '../types.ts'
import { translateResponsesRequest } from './request.ts'
import { chatCompletionToResponse } from './response.ts'
import { chatStreamToResponses } from './stream.ts'
import { translateTools, type ToolNames } from './tools.ts'

const DROPPED_TOOLS_HEADER = 'x-gateway-dropped-tools'
const REVISION = 'responses-translation'

interface Translation {
  toolNames: ToolNames
  droppedTools: string[]
}

const translationSlot = requestSlot<Translation>('responses-translation')

/** The names the request's translation made; a body whose tools were refused has none to map back. */
function toolNamesOf(ctx: RequestContext): ToolNames {
  const remembered = ctx.state(translationSlot)?.toolNames
  if (remembered) return remembered
  const translated = translateTools(ctx.body)
  return translated instanceof GatewayError ? new Map() : translated.names
}

/** One revision per translated request that lost hosted tools (a failover to a second target adds none). */
function recordDroppedTools(ctx: RequestContext, dropped: string[]): void {
  if (dropped.length === 0 || ctx.revisions.some((r) => r.rewriter === REVISION)) return
  const kept = Array.isArray(ctx.body.tools) ? ctx.body.tools.filter((t) => !dropped.includes(String((t as { type?: unknown })?.type))) : ctx.body.tools
  const bytesBefore = Buffer.byteLength(JSON.stringify(ctx.body))
  const bytesAfter = Buffer.byteLength(JSON.stringify({ ...ctx.body, tools: kept }))
  ctx.revisions.push({
    seq: ctx.revisions.length + 1,
    rewriter: REVISION,
    bytes_before: bytesBefore,
    bytes_after: bytesAfter,
    tokens_saved: 0,
    detail: { dropped_tools: dropped, reason: 'hosted tools run only on a native Responses API; the target model is served over chat', target: ctx.target?.selector },
  })
}

export const responsesProtocol: IngressProtocol = {
  id: 'responses',
  toChatRequest(body, ctx) {
    const translated = translateResponsesRequest(body)
    if (translated instanceof GatewayError) return translated
    const { chat, droppedTools, toolNames } = translated
    ctx.setState(translationSlot, { toolNames, droppedTools })
    recordDroppedTools(ctx, droppedTools)
    return chat
  },
  fromChatResponse: (completion, ctx) => chatCompletionToResponse(completion, ctx.body, toolNamesOf(ctx), ctx.target?.model ?? ''),
  fromChatStream: (chunks, ctx) => chatStreamToResponses(chunks, ctx.body, toolNamesOf(ctx), ctx.target?.model ?? ''),
  responseHeaders(ctx): Record<string, string> {
    const dropped = ctx.state(translationSlot)?.droppedTools ?? []
    return dropped.length > 0 ? { [DROPPED_TOOLS_HEADER]: dropped.join(', ') } : {}
  },
}

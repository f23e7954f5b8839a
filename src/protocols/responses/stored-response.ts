/**
 * @module A stored response's routes answered by the gateway (`GET/DELETE /v1/responses/{id}`, `…/cancel`,
 * `…/input_items`) from its own thread store, for a response a provider without the Responses API answered
 * through the translation (or one whose provider has no routes for it). The response-threads plugin finds the
 * thread for the caller (its owner) and leaves it in `storedThreadSlot`; these answers read only that slot, so a
 * request that reaches them without the caller's own thread gets the 404 an unknown id gets.
 */
import { GatewayError } from '../../errors/gateway-error.ts'
import { type RequestContext, requestSlot } from '../../pipeline/context.ts'
import type { UpstreamResult } from '../../providers/types.ts'
import type { ResponseThread } from '../../stores/types.ts'

type Json = Record<string, unknown>

/** The caller's own thread for the response the path names, set by the response-threads plugin. */
export const storedThreadSlot = requestSlot<ResponseThread>('stored-response')

/** The 404 of an id the caller may not see: unknown, expired, deleted or another owner's (not told apart). */
export function responseNotFound(id: string): GatewayError {
  return new GatewayError({ status: 404, type: 'not_found_error', code: 'response_not_found', message: `No response with id '${id}' is stored on this gateway for this key.` })
}

/** Output items that can be sent back as input: messages and tool calls (reasoning is provider-private). */
export function outputAsInput(output: unknown): unknown[] {
  if (!Array.isArray(output)) return []
  return output
    .filter((item: Json) => item?.type === 'message' || item?.type === 'function_call' || item?.type === 'custom_tool_call')
    .map((item: Json) => {
      if (item.type === 'message') return { type: 'message', role: 'assistant', content: item.content }
      const { id: _id, status: _status, ...call } = item
      return call
    })
}

const json = (body: unknown, ctx: RequestContext, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', 'x-request-id': ctx.requestId } })

function ownThread(ctx: RequestContext): ResponseThread | GatewayError {
  return ctx.state(storedThreadSlot) ?? responseNotFound(ctx.pathParam ?? '')
}

/** The response as the client got it when it was made. */
export async function retrieveStored(_body: Json, ctx: RequestContext): Promise<UpstreamResult> {
  const thread = ownThread(ctx)
  if (thread instanceof GatewayError) return thread
  if (!thread.response) return responseNotFound(thread.id)
  if (new URLSearchParams(ctx.rawQuery).get('stream') === 'true') {
    return new GatewayError({
      status: 400,
      type: 'invalid_request_error',
      param: 'stream',
      code: 'stream_not_resumable',
      message: `Response '${thread.id}' was not created with background=true: only a background response's stream can be resumed. Retrieve it without stream.`,
    })
  }
  return json(thread.response, ctx)
}

/** Deleted from the store by the response-threads plugin once this answer is given. */
export async function deleteStored(_body: Json, ctx: RequestContext): Promise<UpstreamResult> {
  const thread = ownThread(ctx)
  if (thread instanceof GatewayError) return thread
  return json({ id: thread.id, object: 'response', deleted: true }, ctx)
}

/** A translated response is never a background one: it was finished when its creation answered, as OpenAI says of such a response. */
export async function cancelStored(_body: Json, ctx: RequestContext): Promise<UpstreamResult> {
  const thread = ownThread(ctx)
  if (thread instanceof GatewayError) return thread
  return new GatewayError({
    status: 400,
    type: 'invalid_request_error',
    code: 'response_not_cancellable',
    message: `Response '${thread.id}' cannot be cancelled: only responses created with background=true can be cancelled.`,
  })
}

const MAX_PAGE = 100
const DEFAULT_PAGE = 20

/** The thread's input items (earlier turns included), as OpenAI lists them: each with an id, newest first by default. */
export async function inputItemsStored(_body: Json, ctx: RequestContext): Promise<UpstreamResult> {
  const thread = ownThread(ctx)
  if (thread instanceof GatewayError) return thread
  const query = new URLSearchParams(ctx.rawQuery)
  const limitText = query.get('limit')
  const limit = limitText === null ? DEFAULT_PAGE : Number(limitText)
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) {
    return new GatewayError({ status: 400, type: 'invalid_request_error', param: 'limit', code: 'invalid_limit', message: `limit must be an integer from 1 to ${MAX_PAGE}.` })
  }
  const order = query.get('order') ?? 'desc'
  if (order !== 'asc' && order !== 'desc') {
    return new GatewayError({ status: 400, type: 'invalid_request_error', param: 'order', code: 'invalid_order', message: "order must be 'asc' or 'desc'." })
  }
  const outputCount = thread.response ? outputAsInput(thread.response.output).length : 0
  const items = thread.items.slice(0, thread.items.length - outputCount).map((item, index) => listedItem(item, thread.id, index))
  if (order === 'desc') items.reverse()
  const after = query.get('after')
  const start = after === null ? 0 : items.findIndex((item) => item.id === after) + 1
  if (after !== null && start === 0) {
    return new GatewayError({ status: 400, type: 'invalid_request_error', param: 'after', code: 'invalid_cursor', message: `No input item '${after}' in response '${thread.id}'.` })
  }
  const page = items.slice(start, start + limit)
  return json({ object: 'list', data: page, first_id: page.at(0)?.id ?? null, last_id: page.at(-1)?.id ?? null, has_more: start + limit < items.length }, ctx)
}

/** An input item as the list shows it: a message's string content as an `input_text` part, every item with an id. */
function listedItem(item: unknown, responseId: string, index: number): Json {
  const fields = (item !== null && typeof item === 'object' ? item : {}) as Json
  const isMessage = fields.type === undefined || fields.type === 'message'
  const id = typeof fields.id === 'string' ? fields.id : `${isMessage ? 'msg' : 'item'}_${responseId}_${index}`
  if (!isMessage) return { ...fields, id }
  const role = typeof fields.role === 'string' ? fields.role : 'user'
  const partType = role === 'assistant' ? 'output_text' : 'input_text'
  const content = typeof fields.content === 'string' ? [{ type: partType, text: fields.content }] : fields.content
  return { ...fields, id, type: 'message', role, content, status: 'completed' }
}

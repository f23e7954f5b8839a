/**
 * @module The Responses API's routes for a stored response (`GET/DELETE /v1/responses/{id}`, `…/cancel`,
 * `…/input_items`): no model in the request; the response-threads plugin targets the provider that made the
 * response, for its owner only. A provider that keeps responses (its adapter's `responsesLifecycle`, an instance
 * with `native_responses`) is asked for a response it answered natively; anything else is answered from the
 * gateway's thread store (./stored-response.ts). Nothing is generated: no usage, texts or cache.
 */
import type { RequestContext } from '../../pipeline/context.ts'
import type { AdapterCall, ResponsesLifecycle, UpstreamQuery, UpstreamResult } from '../../providers/types.ts'
import type { ApiShape, UpstreamRoute } from '../api-shape.ts'
import { responsesStreamCodec } from './stream-codec.ts'
import { cancelStored, deleteStored, inputItemsStored, retrieveStored, storedThreadSlot } from './stored-response.ts'

type Ask = (lifecycle: ResponsesLifecycle, call: AdapterCall, id: string) => Promise<UpstreamResult>
type Stored = NonNullable<UpstreamRoute['fallback']>

/** The documented query parameters of a route, as the client sent them. */
function queryOf(ctx: RequestContext, names: readonly string[]): UpstreamQuery {
  const query = new URLSearchParams(ctx.rawQuery)
  return Object.fromEntries(names.map((name) => [name, query.get(name) ?? undefined]))
}

/** The provider's route for a response it made natively; the stored answer for any other (a thread translated there earlier). */
function route(ask: Ask, stored: Stored): UpstreamRoute {
  return {
    native: (adapter, provider) => {
      const lifecycle = provider.nativeResponses ? adapter.responsesLifecycle : undefined
      if (!lifecycle) return undefined
      return (call) => {
        const thread = call.ctx.state(storedThreadSlot)
        return thread?.native ? ask(lifecycle, call, thread.id) : stored(call.body, call.ctx)
      }
    },
    overChat: null,
    fallback: stored,
  }
}

const NOTHING_GENERATED = {
  errorBody: null,
  genAiOperation: null,
  systemPrompt: null,
  toolResults: null,
  guardedTexts: null,
  tools: null,
  promptTokens: null,
  parameters: null,
  cache: null,
  usage: null,
} as const

/** `GET /v1/responses/{id}`: the response; `stream=true` resumes a background response's stream where the provider keeps it. */
export const retrieveResponseApi: ApiShape = {
  id: 'response_retrieve',
  upstream: route((l, call, id) => l.retrieve(call, id, queryOf(call.ctx, ['stream', 'starting_after', 'include_obfuscation'])), retrieveStored),
  streamCodec: responsesStreamCodec,
  ...NOTHING_GENERATED,
}

/** `DELETE /v1/responses/{id}`; the stored thread goes too (the response-threads plugin). */
export const deleteResponseApi: ApiShape = {
  id: 'response_delete',
  upstream: route((l, call, id) => l.delete(call, id), deleteStored),
  streamCodec: null,
  ...NOTHING_GENERATED,
}

/** `POST /v1/responses/{id}/cancel`: a background response in progress; any other is refused as OpenAI refuses it. */
export const cancelResponseApi: ApiShape = {
  id: 'response_cancel',
  upstream: route((l, call, id) => l.cancel(call, id), cancelStored),
  streamCodec: null,
  ...NOTHING_GENERATED,
}

/** `GET /v1/responses/{id}/input_items`: the input items, a page at a time (`after`, `limit`, `order`). */
export const responseInputItemsApi: ApiShape = {
  id: 'response_input_items',
  upstream: route((l, call, id) => l.inputItems(call, id, queryOf(call.ctx, ['after', 'limit', 'order'])), inputItemsStored),
  streamCodec: null,
  ...NOTHING_GENERATED,
}

/** The APIs whose rows name a stored response in their path: the response-threads plugin finds it for its owner. */
export const STORED_RESPONSE_APIS: ReadonlySet<ApiShape> = new Set([retrieveResponseApi, deleteResponseApi, cancelResponseApi, responseInputItemsApi])

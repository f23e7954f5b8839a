/**
 * @module `previous_response_id` across providers (core). Every successful Responses answer is stored with its
 * thread and its owner: the key (principal) and the user path of the request. A follow-up continues only a thread
 * its own key made under the same user path; any other id is a 404, whether it names another caller's thread, a
 * thread that expired, or a response the gateway never saw. That holds for native providers too: the gateway calls
 * them with one credential for every key, so a provider's id is never passed on unless the gateway stored it for
 * the same owner. A follow-up that goes to the provider that answered natively keeps the id (that provider has the
 * state); any other follow-up gets the stored thread prepended to its `input` instead.
 */
import { GatewayError } from '../../src/errors/gateway-error.ts'
import { requestSlot, type RequestContext } from '../../src/pipeline/context.ts'
import { CONTINUE, definePlugin, respondWithError } from '../../src/pipeline/types.ts'
import { endpoint } from '../../src/protocols/endpoints.ts'
import { responsesApi } from '../../src/protocols/responses/shape.ts'
import type { ResponseThreadOwner } from '../../src/stores/types.ts'
import { responseThreadsManifest } from './manifest.ts'

type Json = Record<string, unknown>

/** The thread's input items (stored history plus this request's input), saved with the answer. */
const threadInputSlot = requestSlot<unknown[]>('response-threads')

/** The request's own input as Responses input items. */
function inputItems(input: unknown): unknown[] {
  if (typeof input === 'string') return [{ role: 'user', content: input }]
  return Array.isArray(input) ? input : []
}

/** The thread store is the Responses API's: rows of other APIs have no `previous_response_id`. */
const speaksResponses = (ctx: RequestContext) => endpoint(ctx.endpoint).api === responsesApi

/** Who the request's threads belong to; undefined before authentication (nothing is stored or read then). */
function ownerOf(ctx: RequestContext): ResponseThreadOwner | undefined {
  return ctx.principal ? { principalId: ctx.principal.id, userPath: ctx.userPath ?? '' } : undefined
}

function notFound(ctx: RequestContext, previousId: string) {
  return respondWithError(
    ctx,
    new GatewayError({
      status: 404,
      type: 'not_found_error',
      param: 'previous_response_id',
      code: 'previous_response_not_found',
      message: `Previous response '${previousId}' is not stored on this gateway for this key; send the conversation as input instead.`,
    }),
  )
}

/** Output items that can be sent back as input: messages and tool calls (reasoning is provider-private). */
function outputAsInput(output: unknown): unknown[] {
  if (!Array.isArray(output)) return []
  return output
    .filter((item: Json) => item?.type === 'message' || item?.type === 'function_call' || item?.type === 'custom_tool_call')
    .map((item: Json) => {
      if (item.type === 'message') return { type: 'message', role: 'assistant', content: item.content }
      const { id: _id, status: _status, ...call } = item
      return call
    })
}

export const responseThreads = definePlugin({
  manifest: responseThreadsManifest,
  create({ stores, providers }) {
    const store = stores.responseThreads
    const answeredNatively = (ctx: RequestContext) => providers.get(ctx.target?.providerName ?? '')?.instance.nativeResponses === true
    /** Only a follow-up waits for the store; every other request continues synchronously. */
    const continueThread = async (ctx: RequestContext, previousId: string, ownInput: unknown[]) => {
      const owner = ownerOf(ctx)
      const previous = owner && (await store.get(previousId, owner))
      if (!previous) return notFound(ctx, previousId)
      const items = [...previous.items, ...ownInput]
      ctx.setState(threadInputSlot, items)
      const sameNativeProvider = previous.native && previous.providerName === ctx.target?.providerName && answeredNatively(ctx) && ctx.body.store !== false
      if (!sameNativeProvider) {
        const { previous_response_id: _dropped, ...rest } = ctx.body
        ctx.body = { ...rest, input: items }
      }
      return CONTINUE
    }
    return {
      before(ctx) {
        if (!speaksResponses(ctx)) return CONTINUE
        const previousId = ctx.body.previous_response_id
        const ownInput = inputItems(ctx.body.input)
        if (typeof previousId !== 'string' || !previousId) {
          ctx.setState(threadInputSlot, ownInput)
          return CONTINUE
        }
        return continueThread(ctx, previousId, ownInput)
      },
      onComplete(ctx, outcome) {
        const owner = ownerOf(ctx)
        if (!speaksResponses(ctx) || outcome.status >= 300 || !ctx.target || !owner) return
        const response = outcome.responseBody as Json | undefined
        if (typeof response?.id !== 'string') return
        return store.save({
          id: response.id,
          owner,
          providerName: ctx.target.providerName,
          native: answeredNatively(ctx),
          items: [...(ctx.state(threadInputSlot) ?? []), ...outputAsInput(response.output)],
        })
      },
    }
  },
})

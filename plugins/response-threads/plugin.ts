/**
 * @module `previous_response_id` across providers (core). Every successful Responses answer is stored with its
 * thread and its owner: the key (principal) and the user path of the request. A follow-up continues only a thread
 * its own key made under the same user path; any other id is a 404, whether it names another caller's thread, a
 * thread that expired, or a response the gateway never saw. That holds for native providers too: the gateway calls
 * them with one credential for every key, so a provider's id is never passed on unless the gateway stored it for
 * the same owner. A follow-up that goes to the provider that answered natively keeps the id (that provider has the
 * state); any other follow-up gets the stored thread prepended to its `input` instead.
 *
 * The routes of a stored response (retrieve, delete, cancel, input items) are found here the same way: the
 * caller's own thread, before anything else runs (an unknown id's 404 comes after the limits). The thread is left for the
 * route stage (src/protocols/responses/stored-response.ts) and its provider becomes the target: a provider that
 * keeps responses is asked for one it answered natively, anything else is answered from the store.
 */
import { GatewayError } from '../../src/errors/gateway-error.ts'
import { requestSlot, type RequestContext } from '../../src/pipeline/context.ts'
import { CONTINUE, definePlugin, respondWithError } from '../../src/pipeline/types.ts'
import { endpoint } from '../../src/protocols/endpoints.ts'
import { responseInputTokensApi } from '../../src/protocols/responses/input-tokens-shape.ts'
import { deleteResponseApi, STORED_RESPONSE_APIS } from '../../src/protocols/responses/lifecycle-shape.ts'
import { responsesApi } from '../../src/protocols/responses/shape.ts'
import { outputAsInput, responseNotFound, storedThreadSlot } from '../../src/protocols/responses/stored-response.ts'
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

/** The thread store is the Responses API's: its answers are threads; its token count may continue one too. */
const speaksResponses = (ctx: RequestContext) => endpoint(ctx.endpoint).api === responsesApi
const continuesThreads = (ctx: RequestContext) => speaksResponses(ctx) || endpoint(ctx.endpoint).api === responseInputTokensApi

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
    /**
     * A stored response's route: the caller's own thread, its provider as the target. Without a target (an id the
     * caller may not see, a provider no longer configured) the store answers after rate limits and budgets counted
     * the call (src/pipeline/run.ts): probing ids costs what any call costs.
     */
    const findStoredResponse = async (ctx: RequestContext) => {
      const owner = ownerOf(ctx)
      const id = ctx.pathParam ?? ''
      const thread = owner && id ? await store.get(id, owner) : undefined
      if (!thread) return CONTINUE
      ctx.setState(storedThreadSlot, thread)
      const registered = providers.get(thread.providerName)
      if (!registered) return CONTINUE
      const model = typeof thread.response?.model === 'string' ? thread.response.model : ''
      ctx.target = { providerName: thread.providerName, providerType: registered!.instance.type, model, selector: `${thread.providerName}/${model}` }
      ctx.stream = new URLSearchParams(ctx.rawQuery).get('stream') === 'true'
      return CONTINUE
    }
    return {
      before(ctx) {
        if (STORED_RESPONSE_APIS.has(endpoint(ctx.endpoint).api)) return findStoredResponse(ctx)
        if (!continuesThreads(ctx)) return CONTINUE
        const previousId = ctx.body.previous_response_id
        const ownInput = inputItems(ctx.body.input)
        if (typeof previousId !== 'string' || !previousId) {
          ctx.setState(threadInputSlot, ownInput)
          return CONTINUE
        }
        return continueThread(ctx, previousId, ownInput)
      },
      // Before the answer goes out: a client that reads the response again right after its delete finds it gone.
      // Synchronous for every other answer (no promise on the request path).
      onResponse(ctx, response) {
        const owner = ownerOf(ctx)
        const deleted = ctx.state(storedThreadSlot)
        if (!deleted || !owner || response.status !== 200 || endpoint(ctx.endpoint).api !== deleteResponseApi) return response
        return store.delete(deleted.id, owner).then(() => response)
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
          // `store: false`: the provider keeps no copy to continue or retrieve, so the gateway's copy serves both.
          native: answeredNatively(ctx) && ctx.body.store !== false,
          items: [...(ctx.state(threadInputSlot) ?? []), ...outputAsInput(response.output)],
          response,
        })
      },
    }
  },
})

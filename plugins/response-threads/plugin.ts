/**
 * @module `previous_response_id` across providers (core). Every successful Responses answer is stored with its
 * thread. A follow-up that goes to the provider that answered natively keeps the id (that provider has the
 * state); any other follow-up gets the stored thread prepended to its `input` instead.
 */
import { GatewayError } from '../../src/errors/gateway-error.ts'
import { requestSlot, type RequestContext } from '../../src/pipeline/context.ts'
import { CONTINUE, definePlugin, respondWithError } from '../../src/pipeline/types.ts'
import { responseThreadsManifest } from './manifest.ts'

type Json = Record<string, unknown>

/** The thread's input items (stored history plus this request's input), saved with the answer. */
const threadInputSlot = requestSlot<unknown[]>('response-threads')

/** The request's own input as Responses input items. */
function inputItems(input: unknown): unknown[] {
  if (typeof input === 'string') return [{ role: 'user', content: input }]
  return Array.isArray(input) ? input : []
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
      const previous = await store.get(previousId)
      if (!previous) {
        if (answeredNatively(ctx)) return CONTINUE // the provider may know its own response id
        return respondWithError(
          ctx,
          new GatewayError({
            status: 404,
            type: 'not_found_error',
            param: 'previous_response_id',
            code: 'previous_response_not_found',
            message: `Previous response '${previousId}' is not stored on this gateway.`,
          }),
        )
      }
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
        if (ctx.endpoint !== 'responses') return CONTINUE
        const previousId = ctx.body.previous_response_id
        const ownInput = inputItems(ctx.body.input)
        if (typeof previousId !== 'string' || !previousId) {
          ctx.setState(threadInputSlot, ownInput)
          return CONTINUE
        }
        return continueThread(ctx, previousId, ownInput)
      },
      onComplete(ctx, outcome) {
        if (ctx.endpoint !== 'responses' || outcome.status >= 300 || !ctx.target) return
        const response = outcome.responseBody as Json | undefined
        if (typeof response?.id !== 'string') return
        return store.save({
          id: response.id,
          providerName: ctx.target.providerName,
          native: answeredNatively(ctx),
          items: [...(ctx.state(threadInputSlot) ?? []), ...outputAsInput(response.output)],
        })
      },
    }
  },
})

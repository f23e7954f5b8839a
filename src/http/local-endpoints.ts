/**
 * @module /v1 endpoints the gateway answers itself once the caller is authenticated: the model list, one model,
 * and a clear 404 for any other path under /v1.
 */
import { gatewayErrors } from '../errors/gateway-error.ts'
import type { ModelCatalog } from '../models/catalog.ts'
import type { RequestContext } from '../pipeline/context.ts'

const json = (body: unknown, requestId: string) =>
  new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json', 'x-request-id': requestId } })

export function localEndpoints(ctx: RequestContext, catalog: ModelCatalog): Response | undefined {
  switch (ctx.endpoint) {
    case 'models.list':
      return json({ object: 'list', data: visibleModels(ctx, catalog) }, ctx.requestId)
    case 'models.get': {
      const id = ctx.pathParam ?? ''
      const model = visibleModels(ctx, catalog).find((m) => m.id === id)
      if (!model) throw gatewayErrors.modelNotFound(id)
      return json(model, ctx.requestId)
    }
    case 'not_found':
      throw gatewayErrors.routeNotFound(ctx.method, ctx.path)
    default:
      return undefined
  }
}

/** The models this caller may use. */
export function visibleModels(_ctx: RequestContext, catalog: ModelCatalog) {
  return catalog.list()
}

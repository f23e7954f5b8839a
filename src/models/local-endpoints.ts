/**
 * @module /v1 endpoints the gateway answers itself once the caller is authenticated (the rows marked `local` in
 * src/protocols/endpoints.ts): the model list, one model, and a clear 404 for any other path under /v1.
 * Expected failures are returned, not thrown.
 */
import { gatewayErrors, type GatewayError } from '../errors/gateway-error.ts'
import { isModelAllowed } from '../keys/model-access.ts'
import type { ModelCatalog } from './catalog.ts'
import type { RequestContext } from '../pipeline/context.ts'

const json = (body: unknown, requestId: string) => new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json', 'x-request-id': requestId } })

export function localEndpoints(ctx: RequestContext, catalog: ModelCatalog): Response | GatewayError | undefined {
  switch (ctx.endpoint) {
    case 'models.list':
      return json({ object: 'list', data: visibleModels(ctx, catalog) }, ctx.requestId)
    case 'models.get': {
      const id = ctx.pathParam ?? ''
      const model = visibleModels(ctx, catalog).find((m) => m.id === id)
      if (!model) return gatewayErrors.modelNotFound(id)
      return json(model, ctx.requestId)
    }
    case 'not_found':
      return gatewayErrors.routeNotFound(ctx.method, ctx.path)
    default:
      return undefined
  }
}

/** The models this caller may use: with allowed_models, those whose id or resolved target selector matches. */
export function visibleModels(ctx: RequestContext, catalog: ModelCatalog) {
  const allowed = ctx.principal?.allowedModels
  const models = catalog.list()
  if (!allowed) return models
  return models.filter((m) => {
    if (isModelAllowed(allowed, [m.id])) return true
    const resolution = catalog.resolve(m.id)
    return resolution.ok && isModelAllowed(allowed, [resolution.target.selector])
  })
}

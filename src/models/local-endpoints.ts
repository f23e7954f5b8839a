/**
 * @module /v1 endpoints the gateway answers itself once the caller is authenticated (the rows whose `local` names
 * one of these in src/protocols/endpoints.ts): the model list, one model, and a clear 404 for any other path under
 * /v1. Expected failures are returned, not thrown.
 */
import { gatewayErrors, type GatewayError } from '../errors/gateway-error.ts'
import { isModelAllowed } from '../keys/model-access.ts'
import type { ModelCatalog } from './catalog.ts'
import type { LocalServices } from '../protocols/endpoints.ts'
import type { RequestContext } from '../pipeline/context.ts'

const json = (body: unknown, requestId: string) => new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json', 'x-request-id': requestId } })

/** The model list: the models this caller may use. */
export function listModels(ctx: RequestContext, { catalog }: LocalServices): Response {
  return json({ object: 'list', data: visibleModels(ctx, catalog) }, ctx.requestId)
}

/** One model by the selector in the path, or 404 when this caller may not see it. */
export function oneModel(ctx: RequestContext, { catalog }: LocalServices): Response | GatewayError {
  const id = ctx.pathParam ?? ''
  const model = visibleModels(ctx, catalog).find((m) => m.id === id)
  return model ? json(model, ctx.requestId) : gatewayErrors.modelNotFound(id)
}

/** Any other path under /v1. */
export function unknownRoute(ctx: RequestContext): GatewayError {
  return gatewayErrors.routeNotFound(ctx.method, ctx.path)
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

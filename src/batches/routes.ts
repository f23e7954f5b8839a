/**
 * @module The Batches API's routes, answered by the gateway for the caller (rows `batches.*` in
 * src/protocols/endpoints.ts): each reads the request, asks the batch service, and answers OpenAI's shapes.
 */
import { GatewayError, gatewayErrors } from '../errors/gateway-error.ts'
import type { RequestContext } from '../pipeline/context.ts'
import type { LocalServices } from '../protocols/endpoints.ts'
import { batchView } from './batch-record.ts'
import { batchCreateRequest } from './schemas.ts'

const MAX_PAGE = 100
const DEFAULT_PAGE = 20

const json = (body: unknown, ctx: RequestContext) => new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json', 'x-request-id': ctx.requestId } })

export async function createBatch(ctx: RequestContext, { batches }: LocalServices): Promise<Response | GatewayError> {
  const request = batchCreateRequest.safeParse(ctx.body)
  if (!request.success) return gatewayErrors.fromZod(request.error)
  const principal = ctx.principal!
  if (principal.method === 'jwt' || principal.method === 'oidc_session') {
    // Its lines run for up to a day, long after such a credential's claims were checked.
    return gatewayErrors.invalidRequest(
      'A batch needs an API key: its lines run later, under the key that made it; an identity token cannot be checked again then.',
      null,
      'batch_needs_api_key',
    )
  }
  const created = await batches.create({ principal, userPath: ctx.userPath ?? '', labels: ctx.labels, budgeted: ctx.features.budget }, request.data)
  return created instanceof GatewayError ? created : json(batchView(created), ctx)
}

export async function retrieveBatch(ctx: RequestContext, { batches }: LocalServices): Promise<Response | GatewayError> {
  const batch = await batches.get(ctx.pathParam ?? '', ctx.principal!.id)
  return batch instanceof GatewayError ? batch : json(batchView(batch), ctx)
}

export async function cancelBatch(ctx: RequestContext, { batches }: LocalServices): Promise<Response | GatewayError> {
  const batch = await batches.cancel(ctx.pathParam ?? '', ctx.principal!.id)
  return batch instanceof GatewayError ? batch : json(batchView(batch), ctx)
}

export async function listBatches(ctx: RequestContext, { batches }: LocalServices): Promise<Response | GatewayError> {
  const query = new URLSearchParams(ctx.rawQuery)
  const limitText = query.get('limit')
  const limit = limitText === null ? DEFAULT_PAGE : Number(limitText)
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) {
    return new GatewayError({ status: 400, type: 'invalid_request_error', param: 'limit', code: 'invalid_limit', message: `limit must be an integer from 1 to ${MAX_PAGE}.` })
  }
  const after = query.get('after') ?? undefined
  const page = await batches.list(ctx.principal!.id, after, limit)
  const data = page.batches.map(batchView)
  return json({ object: 'list', data, first_id: data.at(0)?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: page.hasMore }, ctx)
}

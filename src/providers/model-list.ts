/**
 * @module An upstream's model list, fetched the same way for every provider (the model catalogue refreshes the
 * lists in the background, src/models/catalog.ts): page by page while the provider names a next page. A refusal,
 * a broken connection, the deadline or a body that is not a model list comes back as a GatewayError naming the
 * provider, returned rather than thrown; the catalogue then keeps the static list.
 */
import { GatewayError } from '../errors/gateway-error.ts'
import type { UpstreamUrl } from './upstream-url.ts'
import { authorize, type UpstreamAuth } from './upstream-auth.ts'

export interface ModelListRequest {
  /** The provider's configured name, for the error. */
  provider: string
  /** The page's URL; `pageToken` is what the previous page named as the next (none for the first). */
  url(pageToken?: string): UpstreamUrl
  headers: Record<string, string>
  /** The instance's cloud credentials, applied to each page's request. */
  auth?: UpstreamAuth
  /** The page's model ids and the next page's token, or undefined when the body is not a model list. */
  read(body: unknown): { ids: string[]; next?: string } | undefined
}

export async function fetchModelIds(request: ModelListRequest, signal: AbortSignal): Promise<string[] | GatewayError> {
  const ids: string[] = []
  let pageToken: string | undefined
  do {
    const url = request.url(pageToken)
    let headers = request.headers
    if (request.auth) {
      const authorized = await authorize(request.auth, { method: 'GET', url, headers })
      if (authorized instanceof GatewayError) return unavailable(request.provider, authorized.message)
      headers = authorized
    }
    let res: Response
    try {
      // Never followed, like every upstream call (upstreamFailures.redirected in upstream-errors.ts).
      res = await fetch(url, { headers, signal, redirect: 'manual' })
    } catch (error) {
      return unavailable(request.provider, `GET /models failed: ${(error as Error)?.message ?? String(error)}`)
    }
    if (!res.ok) {
      await res.body?.cancel().catch(() => {})
      if (res.status >= 300 && res.status < 400)
        return unavailable(request.provider, `GET /models answered a redirect (HTTP ${res.status}), which the gateway does not follow; check the provider's base URL`)
      return unavailable(request.provider, `GET /models answered HTTP ${res.status}`)
    }
    const page = request.read(await res.json().catch(() => undefined))
    if (!page) return unavailable(request.provider, 'GET /models answered something that is not a model list')
    ids.push(...page.ids)
    pageToken = page.next || undefined
  } while (pageToken)
  return ids
}

function unavailable(provider: string, message: string): GatewayError {
  return new GatewayError({ status: 502, type: 'provider_error', provider, code: 'model_list_unavailable', message: `Provider '${provider}': ${message}` })
}

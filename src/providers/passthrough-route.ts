/**
 * @module Where a governed pass-through request (`/p/{provider}/{the provider's own path}`) goes, decided before
 * anything else about it: the provider is a configured one, its type forwards pass-through at all, and the path is
 * one its allow-list names (`passthrough` in the provider's manifest: inference paths only; account, billing,
 * files and fine-tuning APIs are not listed and so refused), with the method the list names. The model the request
 * uses comes from the path or the JSON body, so model access, limits, budgets and prices treat it like any other
 * request for `<provider>/<model>`; `{project}` and `{location}` in a path must be the instance's own.
 */
import { PROVIDER_TYPES } from '../config/provider-catalog.ts'
import { GatewayError, gatewayErrors } from '../errors/gateway-error.ts'
import { invalidModelError, modelIdProblem } from '../models/model-id.ts'
import type { PassthroughPath } from './manifest.ts'
import type { ProviderRegistry } from './registry.ts'
import type { ProviderInstance } from './types.ts'
import { type UpstreamUrl, upstreamRawPath } from './upstream-url.ts'

export interface PassthroughRoute {
  providerName: string
  /** The model the request names (decoded), as the provider names it. */
  model: string
  /** The upstream URL: the provider's base URL with the client's path (after the API root) and query, bytes unchanged. */
  url: UpstreamUrl
}

const notAllowed = (message: string) => gatewayErrors.forbidden(message, 'passthrough_path_not_allowed')

/**
 * `rest` is the request path after `/p/`, as received (percent-encoded); `query` the raw query without `?`; `body`
 * the parsed JSON body, when the body is JSON.
 */
export function passthroughRoute(providers: ProviderRegistry, method: string, rest: string, query: string, body: unknown): PassthroughRoute | GatewayError {
  const slash = rest.indexOf('/')
  const providerName = slash === -1 ? rest : rest.slice(0, slash)
  const provider = providers.get(providerName)?.instance
  if (!provider) {
    return new GatewayError({
      status: 404,
      type: 'not_found_error',
      code: 'provider_not_found',
      message: `No provider named '${providerName.slice(0, 100)}' is configured; /p/{provider}/… takes a configured provider's name.`,
    })
  }
  const rules = PROVIDER_TYPES[provider.type].passthrough
  if (!rules) return notAllowed(`Provider '${providerName}' (type ${provider.type}) has no pass-through.`)
  const path = slash === -1 ? '' : rest.slice(slash)
  if (!path.startsWith(`${rules.root}/`)) return notAllowed(`Pass-through to '${providerName}' takes paths under ${rules.root || '/'}.`)
  const relative = path.slice(rules.root.length + 1)
  for (const allowed of rules.paths) {
    const match = matchPath(allowed, relative)
    if (!match) continue
    if (allowed.method !== method)
      return gatewayErrors.invalidRequest(`${method} is not allowed on this pass-through path; it takes ${allowed.method}.`, null, 'method_not_allowed')
    const placesProblem = placeProblem(match, provider)
    if (placesProblem) return notAllowed(placesProblem)
    const model = allowed.model === 'path' ? match.model : bodyModel(body)
    if (model === undefined) return gatewayErrors.invalidRequest('The request names no model: this path takes a JSON body with "model".', 'model', 'invalid_model')
    const problem = modelIdProblem(model)
    if (problem !== undefined) return invalidModelError(model, problem)
    const url = upstreamRawPath(provider.baseUrl, relative, query)
    if (!url)
      return gatewayErrors.invalidRequest(
        'The pass-through path or query is not a plain one (dot segments, encoded slashes or characters a URL would rewrite).',
        null,
        'invalid_path',
      )
    return { providerName, model, url }
  }
  return notAllowed(`'${rules.root}/${relative.slice(0, 200)}' is not on the pass-through allow-list of provider '${providerName}' (inference paths only; see docs/providers.md).`)
}

interface PathMatch {
  model?: string
  project?: string
  location?: string
}

const PLACEHOLDER = /\{(model|project|location)\}/g
const compiled = new Map<string, RegExp>()

/** `models/{model}:generateContent` → a pattern whose groups are the placeholders' raw (encoded) values, one segment each. */
function patternOf(path: string): RegExp {
  let pattern = compiled.get(path)
  if (!pattern) {
    const source = path
      .split(PLACEHOLDER)
      .map((part, i) => (i % 2 === 1 ? `(?<${part}>[^/]+)` : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('')
    pattern = new RegExp(`^${source}$`)
    compiled.set(path, pattern)
  }
  return pattern
}

function matchPath(allowed: PassthroughPath, relative: string): PathMatch | undefined {
  const groups = patternOf(allowed.path).exec(relative)?.groups
  if (!groups && !patternOf(allowed.path).test(relative)) return undefined
  const decoded: PathMatch = {}
  for (const [name, raw] of Object.entries(groups ?? {})) {
    try {
      decoded[name as keyof PathMatch] = decodeURIComponent(raw)
    } catch {
      return undefined
    }
  }
  return decoded
}

function placeProblem(match: PathMatch, provider: ProviderInstance): string | undefined {
  if (match.project !== undefined && match.project !== provider.project) return `Provider '${provider.name}' passes through to its own project only (${provider.project}).`
  if (match.location !== undefined && match.location !== provider.location) return `Provider '${provider.name}' passes through to its own location only (${provider.location}).`
  return undefined
}

function bodyModel(body: unknown): string | undefined {
  const model = (body as { model?: unknown } | undefined)?.model
  return typeof model === 'string' && model !== '' ? model : undefined
}

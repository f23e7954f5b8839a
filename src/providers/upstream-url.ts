/**
 * @module The one way an adapter makes an upstream URL: the provider's base URL, a path written in the adapter's
 * code, and the values it names (a model id, a deployment name) each encoded as exactly one path segment. The
 * result is checked to stay under the base path, so no value can make a request that carries the provider's
 * credential go to another of its APIs or another host; a value that is empty or only dots, or a URL that leaves
 * the base, is a bug (model names are checked before they are resolved, src/models/model-id.ts) and throws.
 * `UpstreamUrl` is branded: `fetchUpstream` and `fetchModelIds` take nothing else, so a URL an adapter puts
 * together by concatenation does not compile.
 */

declare const upstreamUrlBrand: unique symbol
/** A URL made by `upstreamUrl`: under its provider's base path, every value in it encoded. */
export type UpstreamUrl = string & { readonly [upstreamUrlBrand]: true }

/**
 * A tag for the path under `baseUrl`; each `${value}` becomes one encoded segment (`/` included), and `query`
 * is appended encoded (undefined values left out).
 *
 * @example upstreamUrl(provider.baseUrl)`/models/${model}:generateContent`
 * @example upstreamUrl(provider.baseUrl, { 'api-version': version })`/deployments/${deployment}/chat/completions`
 */
export function upstreamUrl(baseUrl: string, query?: Readonly<Record<string, string | undefined>>) {
  return (path: TemplateStringsArray, ...values: string[]): UpstreamUrl => {
    let text = baseUrl + path[0]
    for (let i = 0; i < values.length; i++) text += encodedSegment(values[i]!) + path[i + 1]
    // Joined by hand: a URLSearchParams per call costs several times the rest of this function.
    if (query) {
      let separator = text.includes('?') ? '&' : '?'
      for (const name in query) {
        const value = query[name]
        if (value === undefined) continue
        text += `${separator}${encodeURIComponent(name)}=${encodeURIComponent(value)}`
        separator = '&'
      }
    }
    const url = new URL(text)
    const base = parsedBase(baseUrl)
    if (url.origin !== base.origin || !url.pathname.startsWith(base.path) || url.hash !== '' || url.username !== base.username) {
      throw new Error(`upstream URL ${url.origin}${url.pathname} is not under the provider's base URL ${base.origin}${base.path}`)
    }
    return url.href as UpstreamUrl
  }
}

function encodedSegment(value: string): string {
  if (value === '' || /^\.+$/.test(value)) throw new Error(`an upstream URL path segment may not be ${JSON.stringify(value)}`)
  return encodeURIComponent(value)
}

interface ParsedBase {
  origin: string
  /** The base path with one trailing slash: what every URL under it starts with. */
  path: string
  username: string
}

/** Base URLs are the configured providers' (fixed at start-up): each parsed once. */
const bases = new Map<string, ParsedBase>()

function parsedBase(baseUrl: string): ParsedBase {
  let base = bases.get(baseUrl)
  if (!base) {
    const url = new URL(baseUrl)
    base = { origin: url.origin, path: `${url.pathname.replace(/\/+$/, '')}/`, username: url.username }
    if (bases.size >= 1024) bases.clear()
    bases.set(baseUrl, base)
  }
  return base
}

/**
 * A path the client wrote, already percent-encoded, under `baseUrl` as it is (the governed pass-through forwards the
 * client's path and query byte for byte). Each segment must be a plain one: not empty, not `.` or `..` in any
 * spelling, no encoded `/` or `\\`, nothing a URL parser would rewrite; the result must stay under the base path.
 * Undefined when the path is not such a path (the caller refuses the request).
 *
 * @example upstreamRawPath('https://api.anthropic.com/v1', 'messages', 'beta=true')
 */
export function upstreamRawPath(baseUrl: string, rawPath: string, rawQuery: string): UpstreamUrl | undefined {
  if (rawPath === '' || rawQuery.includes('#')) return undefined
  for (const segment of rawPath.split('/')) {
    if (!RAW_SEGMENT.test(segment) || /%(2f|5c|00)/i.test(segment)) return undefined
    let decoded: string
    try {
      decoded = decodeURIComponent(segment)
    } catch {
      return undefined
    }
    if (decoded === '' || /^\.+$/.test(decoded)) return undefined
  }
  if (!RAW_QUERY.test(rawQuery)) return undefined
  const text = `${baseUrl}/${rawPath}${rawQuery ? `?${rawQuery}` : ''}`
  const url = new URL(text)
  const base = parsedBase(baseUrl)
  // The parser must have kept the path as written (nothing normalised away), and it must stay under the base.
  if (url.origin !== base.origin || !url.pathname.startsWith(base.path) || url.pathname !== `${base.path}${rawPath}` || url.hash !== '') return undefined
  return url.href as UpstreamUrl
}

/** What a raw path segment may hold: unreserved characters, sub-delimiters, `:` `@` and percent escapes (RFC 3986 pchar). */
const RAW_SEGMENT = /^(?:[A-Za-z0-9._~!$&'()*+,;=:@-]|%[0-9A-Fa-f]{2})+$/
const RAW_QUERY = /^(?:[A-Za-z0-9._~!$&'()*+,;=:@/?-]|%[0-9A-Fa-f]{2})*$/

/**
 * @module Browser protections for what the gateway serves to browsers on its own origin: the dashboard (where an
 * admin credential lives while signed in), the admin API it calls, and the base URL's redirect to it.
 * - A strict Content-Security-Policy: scripts, styles and connections only from the gateway itself, no inline
 *   script or style, nothing from a CDN; `frame-ancestors 'none'` (and X-Frame-Options for older browsers) so no
 *   other site can frame the dashboard and trick clicks out of a signed-in operator.
 * - `nosniff`, so a JSON answer is never run as a script or rendered as HTML; `no-referrer`, so no URL of the
 *   dashboard (hash routes carry audit filters) leaks to another site.
 */

/**
 * The dashboard page. `img-src data:`: Pico's form icons are inline SVGs in its CSS; no `'unsafe-eval'`: zod
 * detects that it may not compile validators and validates without (the dashboard sets it jitless anyway).
 */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

/** JSON and redirects: nothing to load, nothing to frame. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

const COMMON: ReadonlyArray<readonly [string, string]> = [
  ['x-frame-options', 'DENY'],
  ['x-content-type-options', 'nosniff'],
  ['referrer-policy', 'no-referrer'],
]

/** Sets the headers on `headers` (of a Response the caller owns) and returns them. */
export function withSecurityHeaders(headers: Headers, csp: string = API_CSP): Headers {
  headers.set('content-security-policy', csp)
  for (const [name, value] of COMMON) headers.set(name, value)
  return headers
}

/**
 * @module `jose`, loaded on first use: only a gateway with identity-token issuers (auth.jwt) or dashboard SSO
 * (auth.oidc) verifies a JWT, and the others need not hold it (docs/workers.md, "Memory per process").
 */
let loading: Promise<typeof import('jose')> | undefined

export function loadJose(): Promise<typeof import('jose')> {
  loading ??= import('jose')
  return loading
}

/**
 * @module `auth.jwt`: issuers whose signed identity tokens (JWT bearers) are accepted on /v1 and /mcp instead of a
 * managed key, and how a token's claims become a principal (docs/keys.md, "Identity tokens"). One issuer can also
 * come from GATEWAY_JWT_ISSUER and GATEWAY_JWT_AUDIENCE.
 */
import { z } from 'zod'

/** Asymmetric algorithms only: a JWKS publishes public keys, so an HMAC algorithm would make the public key the secret. */
export const JWT_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const

const claimName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_.:-]{0,99}$/, 'expected a claim name')

export const jwtIssuerSchema = z
  .strictObject({
    /** The `iss` the tokens carry, exactly; its OpenID configuration is read from `<issuer>/.well-known/openid-configuration`. */
    issuer: z.url({ protocol: /^https?$/ }),
    /** Accepted `aud` values: a token must name at least one. */
    audience: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).transform((a) => (Array.isArray(a) ? a : [a])),
    /** The issuer's key set, when it publishes no OpenID configuration. */
    jwks_uri: z.url({ protocol: /^https?$/ }).optional(),
    /** The algorithms accepted from this issuer (default: every asymmetric one; never `none`, never HMAC). */
    algorithms: z
      .array(z.enum(JWT_ALGORITHMS))
      .min(1)
      .default([...JWT_ALGORITHMS]),
    /** The claim naming the caller; the principal id is `jwt:<issuer>#<value>`. */
    subject_claim: claimName.default('sub'),
    /** The request's user path from a claim holding a path (`/team/ci`) ... */
    user_path_claim: claimName.optional(),
    /** ... or from a template of claims, e.g. `/ci/{repository_owner}/{repository}`. A token whose path cannot be made is refused. */
    user_path: z.string().startsWith('/').optional(),
    /** Models these callers may use (selectors, virtual names, `provider/*`); default: unrestricted ... */
    allowed_models: z.array(z.string().min(1)).optional(),
    /** ... or from a claim holding an array of them (or a space-separated string); both given: a model must be in both. */
    allowed_models_claim: claimName.optional(),
  })
  .refine((i) => !(i.user_path && i.user_path_claim), 'give either user_path or user_path_claim, not both')
export type JwtIssuerConfig = z.infer<typeof jwtIssuerSchema>

export const jwtConfigSchema = z.strictObject({
  issuers: z.array(jwtIssuerSchema).default([]),
  /** Clock difference tolerated on `exp` and `nbf`. */
  leeway_seconds: z.coerce.number().int().min(0).max(300).default(30),
  /** How long a fetched key set is trusted before it is fetched again; an unknown `kid` refetches sooner, at most once per `refetch_cooldown_seconds`. */
  jwks_max_age_seconds: z.coerce.number().int().min(10).default(600),
  refetch_cooldown_seconds: z.coerce.number().int().min(1).default(30),
  /** Time allowed for the discovery document or the key set to arrive. */
  fetch_timeout_ms: z.coerce.number().int().min(100).default(5000),
})
export type JwtConfig = z.infer<typeof jwtConfigSchema>

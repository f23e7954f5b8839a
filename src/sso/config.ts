/**
 * @module `auth.oidc`: the dashboard's sign-in through the company's OpenID provider (docs/sso.md): the client,
 * the session cookie and its timeouts, and the rules that turn ID-token claims into an admin role and subtree.
 * OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET and OIDC_SESSION_SECRET set the same fields.
 */
import { z } from 'zod'
import { ADMIN_ROLES } from '../admin/roles.ts'

const claimName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_.:-]{0,99}$/, 'expected a claim name')

/** One rule: when its condition holds for the ID token's claims, the person gets `role` over `scope` (default: everything). */
export const roleRuleSchema = z
  .strictObject({
    /** A claim holding a list (e.g. `groups`) that must include `includes`, or a claim that must equal `equals`. */
    claim: claimName.optional(),
    includes: z.string().min(1).optional(),
    equals: z.union([z.string(), z.number(), z.boolean()]).optional(),
    /** The `email` claim's domain (with `email_verified` true when the token carries it). */
    email_domain: z.string().min(1).optional(),
    role: z.enum(ADMIN_ROLES),
    /** The user-path subtree the role is confined to; absent: the whole tree. */
    scope: z.string().startsWith('/').optional(),
  })
  .refine((r) => (r.claim !== undefined) !== (r.email_domain !== undefined), 'a rule names either a claim or an email_domain')
  .refine((r) => r.claim === undefined || (r.includes !== undefined) !== (r.equals !== undefined), 'a claim rule takes either includes or equals')
export type RoleRule = z.infer<typeof roleRuleSchema>

export const oidcConfigSchema = z
  .strictObject({
    issuer: z.url({ protocol: /^https?$/ }).optional(),
    client_id: z.string().min(1).optional(),
    client_secret: z.string().min(1).optional(),
    /** Where the provider sends the person back: `<gateway URL>/auth/oidc/callback`, registered with the provider. Default: from the request's origin. */
    redirect_uri: z.url({ protocol: /^https?$/ }).optional(),
    scopes: z.array(z.string().min(1)).default(['openid', 'email', 'profile']),
    /** Signs the session cookies; the same on every replica. At least 32 characters. */
    session_secret: z.string().min(32, 'expected at least 32 characters (e.g. `openssl rand -hex 32`)').optional(),
    /** Off only for plain-HTTP local use: a Secure cookie is not sent over http://. */
    cookie_secure: z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]).default(true),
    /** A session unused this long ends. */
    idle_timeout_minutes: z.coerce.number().int().min(1).default(30),
    /** A session ends this long after sign-in, used or not. */
    absolute_timeout_hours: z.coerce.number().int().min(1).max(720).default(12),
    /** After this long the role is mapped again from a fresh sign-in at the provider (silent while the provider's session lasts). */
    refresh_minutes: z.coerce.number().int().min(1).default(10),
    /** Rules in order; the first that matches gives the role. A person no rule matches cannot sign in. */
    role_rules: z.array(roleRuleSchema).default([]),
    /** Where the provider sends the person after its sign-out (registered with it); default the dashboard. */
    post_logout_redirect_uri: z.url({ protocol: /^https?$/ }).optional(),
  })
  .superRefine((c, ctx) => {
    if (!c.issuer) return
    for (const field of ['client_id', 'client_secret', 'session_secret'] as const) {
      if (!c[field]) ctx.addIssue({ code: 'custom', path: [field], message: `required with auth.oidc.issuer (OIDC_${field.toUpperCase()})` })
    }
  })
export type OidcConfig = z.infer<typeof oidcConfigSchema>

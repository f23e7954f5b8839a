/**
 * @module A verified token's claims as a principal: `jwt:<issuer>#<subject>`, its user path (a claim holding a
 * path, or a template of claims) and the models it may use. A token whose principal cannot be made is refused,
 * never let in with less: a caller without its user path would escape the budgets and limits of its subtree.
 */
import type { JWTPayload } from 'jose'
import type { Principal } from '../../pipeline/context.ts'
import { normalizeUserPath } from '../user-path.ts'
import type { JwtIssuerConfig } from './config.ts'

export type ClaimMapping = { ok: true; principal: Principal } | { ok: false; reason: string }

const MAX_SUBJECT_LENGTH = 256
const TEMPLATE_PART = /\{([A-Za-z_][A-Za-z0-9_.:-]{0,99})\}/g

export function principalFromClaims(issuer: JwtIssuerConfig, claims: JWTPayload): ClaimMapping {
  const subject = scalarClaim(claims, issuer.subject_claim)
  if (subject === undefined || subject.length === 0) return { ok: false, reason: `the token has no '${issuer.subject_claim}' claim` }
  if (subject.length > MAX_SUBJECT_LENGTH) return { ok: false, reason: `the token's '${issuer.subject_claim}' claim is longer than ${MAX_SUBJECT_LENGTH} characters` }

  const userPath = userPathOf(issuer, claims)
  if (!userPath.ok) return userPath
  const allowedModels = allowedModelsOf(issuer, claims)
  if (!allowedModels.ok) return allowedModels
  return {
    ok: true,
    principal: { method: 'jwt', id: `jwt:${issuer.issuer}#${subject}`, userPath: userPath.path, allowedModels: allowedModels.models },
  }
}

function userPathOf(issuer: JwtIssuerConfig, claims: JWTPayload): { ok: true; path: string | undefined } | { ok: false; reason: string } {
  let raw: string
  if (issuer.user_path_claim) {
    const value = scalarClaim(claims, issuer.user_path_claim)
    if (value === undefined) return { ok: false, reason: `the token has no '${issuer.user_path_claim}' claim for its user path` }
    raw = value
  } else if (issuer.user_path) {
    let missing: string | undefined
    raw = issuer.user_path.replace(TEMPLATE_PART, (_, name: string) => {
      const value = scalarClaim(claims, name)
      if (value === undefined || value === '') missing ??= name
      return value ?? ''
    })
    if (missing !== undefined) return { ok: false, reason: `the token has no '${missing}' claim for its user path` }
  } else {
    return { ok: true, path: undefined }
  }
  const normalized = normalizeUserPath(raw)
  return normalized.ok ? normalized : { ok: false, reason: `the token's user path is not valid: ${normalized.reason}` }
}

function allowedModelsOf(issuer: JwtIssuerConfig, claims: JWTPayload): { ok: true; models: readonly string[] | undefined } | { ok: false; reason: string } {
  const configured = issuer.allowed_models
  if (!issuer.allowed_models_claim) return { ok: true, models: configured }
  const value = claims[issuer.allowed_models_claim]
  const fromClaim =
    typeof value === 'string' ? value.split(' ').filter(Boolean) : Array.isArray(value) && value.every((m) => typeof m === 'string') ? (value as string[]) : undefined
  // A token without the claim may use no model rather than every model.
  if (fromClaim === undefined) return { ok: false, reason: `the token has no '${issuer.allowed_models_claim}' claim listing its models` }
  return { ok: true, models: configured ? fromClaim.filter((m) => configured.includes(m)) : fromClaim }
}

function scalarClaim(claims: JWTPayload, name: string): string | undefined {
  const value = claims[name]
  if (typeof value === 'string') return value
  if (typeof value === 'number' && Number.isFinite(value)) return String(value)
  return undefined
}

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { silentLogger } from '../../log/logger.ts'
import { startTokenIssuer, type TokenIssuer } from '../../../test/helpers/token-issuer.ts'
import { jwtConfigSchema } from './config.ts'
import { JwtVerifier, looksLikeJwt, MAX_TOKEN_LENGTH } from './verifier.ts'

let issuer: TokenIssuer
beforeAll(async () => {
  issuer = await startTokenIssuer('ES256')
})
afterAll(() => issuer?.stop())

const configFor = (issuers: unknown[], extra: Record<string, unknown> = {}) => jwtConfigSchema.parse({ issuers, ...extra })

/** A fetch that counts calls by path and can be told to fail or to serve another discovery document. */
function countingFetch(rewrite?: (url: string) => Response | undefined) {
  const calls: string[] = []
  const fn = async (input: string | URL, init?: RequestInit) => {
    const url = String(input)
    calls.push(new URL(url).pathname)
    return rewrite?.(url) ?? fetch(input, init)
  }
  return { calls, fn }
}

describe('JwtVerifier', () => {
  test('discovers the key set once at start and verifies without fetching again', async () => {
    const counting = countingFetch()
    const verifier = new JwtVerifier(configFor([{ issuer: issuer.issuer, audience: 'gw' }]), silentLogger, { fetch: counting.fn })
    await verifier.start()
    expect(counting.calls).toEqual(['/.well-known/openid-configuration'])
    for (let i = 0; i < 5; i++) {
      const result = await verifier.verify(await issuer.sign({ sub: `s${i}`, aud: 'gw' }))
      expect(result).toMatchObject({ kind: 'verified', principal: { method: 'jwt', id: `jwt:${issuer.issuer}#s${i}` } })
    }
    expect(counting.calls).toEqual(['/.well-known/openid-configuration', '/jwks'])
  })

  test('a discovery document naming another issuer is refused; the issuer is asked again only after the cooldown', async () => {
    const counting = countingFetch((url) =>
      url.endsWith('/openid-configuration') ? Response.json({ issuer: 'https://evil.example', jwks_uri: `${issuer.issuer}/jwks` }) : undefined,
    )
    const verifier = new JwtVerifier(configFor([{ issuer: issuer.issuer, audience: 'gw' }], { refetch_cooldown_seconds: 60 }), silentLogger, { fetch: counting.fn })
    await verifier.start()
    const token = await issuer.sign({ sub: 's', aud: 'gw' })
    const results = await Promise.all(Array.from({ length: 10 }, () => verifier.verify(token)))
    for (const result of results) {
      expect(result.kind).toBe('unavailable')
      expect((result as { reason: string }).reason).toContain('names the issuer "https://evil.example"')
    }
    expect(counting.calls).toEqual(['/.well-known/openid-configuration'])
  })

  test('an unreachable key set makes the token unavailable (not refused)', async () => {
    const verifier = new JwtVerifier(configFor([{ issuer: issuer.issuer, audience: 'gw', jwks_uri: 'http://127.0.0.1:9/jwks' }], { fetch_timeout_ms: 500 }), silentLogger)
    const result = await verifier.verify(await issuer.sign({ sub: 's', aud: 'gw' }))
    expect(result.kind).toBe('unavailable')
  })

  test('shapes: only three base64url parts starting with a JSON header look like a JWT; overlong tokens are refused unread', async () => {
    expect(looksLikeJwt('sk-gw-abc')).toBe(false)
    expect(looksLikeJwt('eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.')).toBe(true)
    expect(looksLikeJwt('eyJa.b')).toBe(false)
    const verifier = new JwtVerifier(configFor([{ issuer: issuer.issuer, audience: 'gw' }]), silentLogger)
    expect(await verifier.verify(`eyJ${'a'.repeat(MAX_TOKEN_LENGTH)}.a.a`)).toMatchObject({ kind: 'rejected', failure: 'malformed' })
    expect(await verifier.verify('eyJ!.a.a')).toMatchObject({ kind: 'rejected', failure: 'malformed' })
  })
})

describe('claims to a principal', () => {
  const verifierWith = (extra: Record<string, unknown>) => new JwtVerifier(configFor([{ issuer: issuer.issuer, audience: 'gw', ...extra }]), silentLogger)

  test('the subject claim, a path claim and the models of a claim, narrowed by the configured list', async () => {
    const verifier = verifierWith({ subject_claim: 'email', user_path_claim: 'path', allowed_models: ['a', 'b'], allowed_models_claim: 'models' })
    const result = await verifier.verify(await issuer.sign({ sub: 'ignored', email: 'bot@acme.test', path: 'acme//ml/', models: 'b c', aud: 'gw' }))
    expect(result).toEqual({ kind: 'verified', principal: { method: 'jwt', id: `jwt:${issuer.issuer}#bot@acme.test`, userPath: '/acme/ml', allowedModels: ['b'] } })
  })

  test('a token without the models claim may use no model rather than every model', async () => {
    const result = await verifierWith({ allowed_models_claim: 'models' }).verify(await issuer.sign({ sub: 's', aud: 'gw' }))
    expect(result).toMatchObject({ kind: 'rejected', reason: "the token has no 'models' claim listing its models" })
  })

  test('a template claim may not climb out of its prefix', async () => {
    const verifier = verifierWith({ user_path: '/ci/{owner}' })
    expect(await verifier.verify(await issuer.sign({ sub: 's', aud: 'gw', owner: '../root' }))).toMatchObject({ kind: 'rejected' })
    expect(await verifier.verify(await issuer.sign({ sub: 's', aud: 'gw', owner: { nested: 1 } }))).toMatchObject({ kind: 'rejected' })
    expect(await verifier.verify(await issuer.sign({ sub: 's', aud: 'gw', owner: 'acme' }))).toMatchObject({ kind: 'verified', principal: { userPath: '/ci/acme' } })
  })

  test('a token without a subject is refused', async () => {
    expect(await verifierWith({}).verify(await issuer.sign({ aud: 'gw' }))).toMatchObject({ kind: 'rejected', reason: "the token has no 'sub' claim" })
  })
})

describe('configuration', () => {
  test('HMAC and none are not algorithms an issuer can be given', () => {
    expect(() => configFor([{ issuer: issuer.issuer, audience: 'gw', algorithms: ['HS256'] }])).toThrow()
    expect(() => configFor([{ issuer: issuer.issuer, audience: 'gw', algorithms: ['none'] }])).toThrow()
    expect(() => configFor([{ issuer: issuer.issuer, audience: 'gw', user_path: '/a', user_path_claim: 'p' }])).toThrow()
  })
})

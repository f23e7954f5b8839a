/**
 * @module An identity token issuer for tests: a real HTTP server (port 0) that serves an OpenID configuration and
 * its JWKS, signs tokens with `jose` (RS256, ES256 or EdDSA), rotates its keys on demand and counts the times its
 * key set is fetched. A full OpenID provider cannot mint the tokens these tests need (expired, for another
 * audience, tampered, unsigned), nor rotate its keys mid-test; the gateway sees the same wire format either way.
 */
import { exportJWK, generateKeyPair, type CryptoKey, type JWK, type JWTPayload, SignJWT } from 'jose'

export type IssuerAlgorithm = 'RS256' | 'ES256' | 'EdDSA'

interface SigningKey {
  kid: string
  alg: IssuerAlgorithm
  privateKey: CryptoKey
  publicJwk: JWK
}

export interface TokenIssuer {
  /** The issuer identifier (`iss`), its base URL. */
  issuer: string
  /** The key set's fetches so far. */
  readonly jwksFetches: number
  /** The current signing key's `kid`. */
  readonly kid: string
  /** The current public key, as published. */
  readonly publicJwk: JWK
  /** Signs `claims` (`iss`, `iat` and a 5-minute `exp` added unless given) with the current key, or one given. */
  sign(claims: JWTPayload, options?: { kid?: string; expiresIn?: string | number; iss?: string; key?: CryptoKey; alg?: string }): Promise<string>
  /** A new key pair with a new `kid` replaces the published one (`keep`: both are published). */
  rotate(options?: { keep?: boolean }): Promise<void>
  stop(): void
}

async function newKey(alg: IssuerAlgorithm): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true })
  const kid = `k-${crypto.randomUUID().slice(0, 8)}`
  return { kid, alg, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } }
}

export async function startTokenIssuer(alg: IssuerAlgorithm = 'RS256'): Promise<TokenIssuer> {
  let published: SigningKey[] = [await newKey(alg)]
  let jwksFetches = 0
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch(request): Response {
      const { pathname } = new URL(request.url)
      if (pathname === '/.well-known/openid-configuration') {
        return Response.json({
          issuer,
          jwks_uri: `${issuer}/jwks`,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          response_types_supported: ['code'],
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: [alg],
        })
      }
      if (pathname === '/jwks') {
        jwksFetches++
        return Response.json({ keys: published.map((k) => k.publicJwk) })
      }
      return new Response('not found', { status: 404 })
    },
  })
  const issuer: string = `http://127.0.0.1:${server.port}`
  const current = () => published[published.length - 1]!
  return {
    issuer,
    get jwksFetches() {
      return jwksFetches
    },
    get kid() {
      return current().kid
    },
    get publicJwk() {
      return current().publicJwk
    },
    async sign(claims, options = {}) {
      const key = current()
      const jwt = new SignJWT({ iss: options.iss ?? issuer, ...claims }).setProtectedHeader({ alg: options.alg ?? key.alg, kid: options.kid ?? key.kid, typ: 'JWT' }).setIssuedAt()
      if (claims.exp === undefined) jwt.setExpirationTime(options.expiresIn ?? '5m')
      return jwt.sign(options.key ?? key.privateKey)
    },
    async rotate({ keep = false } = {}) {
      const next = await newKey(alg)
      published = keep ? [...published, next] : [next]
    },
    stop() {
      server.stop(true)
    },
  }
}

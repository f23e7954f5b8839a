/**
 * @module Loopback stand-ins for Google's token services, written from Google's public OAuth 2.0 and STS references:
 * the token endpoint (`jwt-bearer` grants, whose JWT it verifies with the service account's public key: RS256, the
 * key id, issuer, audience equal to the token URI, the cloud-platform scope and a lifetime of at most an hour;
 * `refresh_token` grants), the STS token exchange and the IAM Credentials impersonation of workload identity
 * federation, and the metadata server (which insists on `Metadata-Flavor: Google`). Every access token it issues
 * is remembered with its expiry, so a mock Vertex AI can check the bearer token it is sent.
 */

export interface ServiceAccountKey {
  /** The key file's contents (token_uri pointing at this mock). */
  file: Record<string, string>
  publicKey: CryptoKey
}

export interface MockGoogleAuth {
  url: string
  tokenUri: string
  calls: Record<string, number>
  /** Whether this mock issued the token and it has not expired. */
  accepts(token: string): boolean
  /** Adds a service account whose JWTs are accepted. */
  serviceAccount(email: string, publicKey: CryptoKey, keyId: string): void
  stop(): void
}

export interface MockGoogleAuthOptions {
  refreshUser?: { clientId: string; clientSecret: string; refreshToken: string }
  federation?: { audience: string; subjectToken: () => string; impersonate?: string }
  /** Lifetime of issued tokens in seconds (default 3599). */
  expiresIn?: () => number
}

export const CLOUD_PLATFORM = 'https://www.googleapis.com/auth/cloud-platform'

/** A fresh RSA key pair and a service account key file for it whose token_uri is `tokenUri`. */
export async function serviceAccountKey(tokenUri: string, email = 'gateway@test-project.iam.gserviceaccount.com'): Promise<ServiceAccountKey> {
  const pair = (await crypto.subtle.generateKey({ name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }, true, [
    'sign',
    'verify',
  ])) as CryptoKeyPair
  const pkcs8 = Buffer.from(await crypto.subtle.exportKey('pkcs8', pair.privateKey)).toString('base64')
  const pem = `-----BEGIN PRIVATE KEY-----\n${pkcs8.match(/.{1,64}/g)!.join('\n')}\n-----END PRIVATE KEY-----\n`
  const keyId = crypto.randomUUID().replaceAll('-', '')
  return {
    file: {
      type: 'service_account',
      project_id: 'test-project',
      private_key_id: keyId,
      private_key: pem,
      client_email: email,
      client_id: '1234567890',
      auth_uri: 'https://accounts.google.com/o/oauth2/auth',
      token_uri: tokenUri,
    },
    publicKey: pair.publicKey,
  }
}

function oauthError(status: number, error: string, description: string): Response {
  return Response.json({ error, error_description: description }, { status })
}

export function startMockGoogleAuth(options: MockGoogleAuthOptions = {}): MockGoogleAuth {
  const calls: Record<string, number> = {}
  const count = (what: string) => {
    calls[what] = (calls[what] ?? 0) + 1
  }
  const issued = new Map<string, number>()
  const accounts = new Map<string, { publicKey: CryptoKey; keyId: string }>()
  const issue = (prefix: string) => {
    const token = `ya29.${prefix}-${crypto.randomUUID()}`
    const expiresIn = options.expiresIn?.() ?? 3599
    issued.set(token, Date.now() + expiresIn * 1000)
    return { access_token: token, expires_in: expiresIn, token_type: 'Bearer' }
  }
  let tokenUri = ''

  async function verifyJwt(assertion: string): Promise<string | undefined> {
    const [h, c, s] = assertion.split('.')
    if (!h || !c || !s) return 'Invalid JWT: not three parts'
    const header = JSON.parse(Buffer.from(h, 'base64url').toString())
    const claims = JSON.parse(Buffer.from(c, 'base64url').toString())
    const account = accounts.get(claims.iss)
    if (!account) return `Invalid JWT: unknown issuer ${claims.iss}`
    if (header.alg !== 'RS256' || header.kid !== account.keyId) return 'Invalid JWT: alg or kid'
    const valid = await crypto.subtle.verify('RSASSA-PKCS1-v1_5', account.publicKey, Buffer.from(s, 'base64url'), new TextEncoder().encode(`${h}.${c}`))
    if (!valid) return 'Invalid JWT Signature.'
    if (claims.aud !== tokenUri)
      return `Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values and use a clock with skew to account for clock differences between systems. (aud ${claims.aud})`
    if (typeof claims.scope !== 'string' || !claims.scope.split(' ').includes(CLOUD_PLATFORM)) return 'Invalid OAuth scope or ID token audience provided.'
    const now = Math.floor(Date.now() / 1000)
    if (!(claims.iat <= now + 60 && claims.exp > now && claims.exp - claims.iat <= 3600)) return 'Invalid JWT: Token must be a short-lived token (60 minutes)'
    return undefined
  }

  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(request) {
      const url = new URL(request.url)
      if (url.pathname === '/token' && request.method === 'POST') {
        const form = new URLSearchParams(await request.text())
        const grant = form.get('grant_type')
        if (grant === 'urn:ietf:params:oauth:grant-type:jwt-bearer') {
          count('jwt')
          const problem = await verifyJwt(form.get('assertion') ?? '')
          return problem ? oauthError(400, 'invalid_grant', problem) : Response.json(issue('sa'))
        }
        if (grant === 'refresh_token') {
          count('refresh')
          const user = options.refreshUser
          if (!user || form.get('client_id') !== user.clientId || form.get('client_secret') !== user.clientSecret)
            return oauthError(401, 'invalid_client', 'The OAuth client was not found.')
          if (form.get('refresh_token') !== user.refreshToken) return oauthError(400, 'invalid_grant', 'Token has been expired or revoked.')
          return Response.json(issue('user'))
        }
        return oauthError(400, 'unsupported_grant_type', `Invalid grant_type: ${grant}`)
      }
      if (url.pathname === '/sts/v1/token' && request.method === 'POST') {
        count('sts')
        const form = new URLSearchParams(await request.text())
        const federation = options.federation
        if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:token-exchange') return oauthError(400, 'invalid_request', 'grant_type')
        if (!federation || form.get('audience') !== federation.audience)
          return oauthError(400, 'invalid_target', 'The target service indicated by the "audience" parameters is invalid.')
        if (form.get('requested_token_type') !== 'urn:ietf:params:oauth:token-type:access_token' || form.get('scope') !== CLOUD_PLATFORM)
          return oauthError(400, 'invalid_request', 'token type or scope')
        if (form.get('subject_token') !== federation.subjectToken()) return oauthError(400, 'invalid_grant', 'The audience in ID Token does not match the expected audience.')
        return Response.json({ ...issue('federated'), issued_token_type: 'urn:ietf:params:oauth:token-type:access_token' })
      }
      const impersonation = /^\/v1\/projects\/-\/serviceAccounts\/([^/:]+):generateAccessToken$/.exec(url.pathname)
      if (impersonation && request.method === 'POST') {
        count('impersonate')
        const bearer = request.headers.get('authorization')?.replace(/^Bearer /, '') ?? ''
        if (!bearer.startsWith('ya29.federated-') || !accepts(bearer))
          return Response.json({ error: { code: 401, message: 'Request had invalid authentication credentials.', status: 'UNAUTHENTICATED' } }, { status: 401 })
        if (decodeURIComponent(impersonation[1]!) !== options.federation?.impersonate)
          return Response.json({ error: { code: 403, message: 'Permission iam.serviceAccounts.getAccessToken denied', status: 'PERMISSION_DENIED' } }, { status: 403 })
        const body = (await request.json()) as { scope?: string[]; lifetime?: string }
        if (!body.scope?.includes(CLOUD_PLATFORM)) return Response.json({ error: { code: 400, message: 'scope', status: 'INVALID_ARGUMENT' } }, { status: 400 })
        const { access_token, expires_in } = issue('impersonated')
        return Response.json({ accessToken: access_token, expireTime: new Date(Date.now() + expires_in * 1000).toISOString() })
      }
      if (url.pathname === '/computeMetadata/v1/instance/service-accounts/default/token') {
        count('metadata')
        if (request.headers.get('metadata-flavor') !== 'Google') return new Response('Missing required header: Metadata-Flavor', { status: 403 })
        return Response.json(issue('metadata'), { headers: { 'metadata-flavor': 'Google' } })
      }
      return new Response('not found', { status: 404 })
    },
  })
  const url = `http://127.0.0.1:${server.port}`
  tokenUri = `${url}/token`
  function accepts(token: string): boolean {
    const expiry = issued.get(token)
    return expiry !== undefined && expiry > Date.now()
  }
  return {
    url,
    tokenUri,
    calls,
    accepts,
    serviceAccount: (email, publicKey, keyId) => accounts.set(email, { publicKey, keyId }),
    stop: () => server.stop(true),
  }
}

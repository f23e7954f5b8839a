/**
 * @module A real OpenID provider for tests: `oidc-provider` (the certified Node.js implementation, run here under
 * Bun) on a real socket, with its development login and consent pages (any login, any password), accounts whose
 * claims the test sets and may change mid-test, one confidential client, PKCE required. `signIn` walks its pages
 * over HTTP the way a browser would (cookies, redirects, forms); the browser test clicks through the same pages.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import Provider from 'oidc-provider'

export interface TestProvider {
  issuer: string
  clientId: string
  clientSecret: string
  /** Claims by login name (the `sub`); change them to change what the next sign-in carries. */
  accounts: Map<string, Record<string, unknown>>
  /** Registers the gateway's callback (known only once the gateway listens) and starts answering. */
  serve(redirectUri: string, postLogoutRedirectUri: string): void
  stop(): Promise<void>
}

export async function startTestProvider(): Promise<TestProvider> {
  const server: Server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const accounts = new Map<string, Record<string, unknown>>()
  const clientId = 'ai-gateway-dashboard'
  const clientSecret = 'provider-client-secret-0123456789abcdef'
  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    serve(redirectUri, postLogoutRedirectUri) {
      const provider = new Provider(issuer, {
        clients: [
          {
            client_id: clientId,
            client_secret: clientSecret,
            redirect_uris: [redirectUri],
            post_logout_redirect_uris: [postLogoutRedirectUri],
            grant_types: ['authorization_code'],
            response_types: ['code'],
          },
        ],
        pkce: { required: () => true },
        features: { devInteractions: { enabled: true }, rpInitiatedLogout: { enabled: true } },
        cookies: { keys: ['test-provider-cookie-key-0123456789'] },
        claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
        // The ID token carries the claims of the granted scopes (the gateway reads no userinfo).
        conformIdTokenClaims: false,
        findAccount: async (_ctx: unknown, sub: string) => ({
          accountId: sub,
          claims: async () => ({ sub, ...(accounts.get(sub) ?? {}) }),
        }),
      })
      // The provider's own log would otherwise print a warning per test run about the runtime and dev keys.
      server.on('request', provider.callback())
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** A tiny cookie jar per origin, enough for the sign-in round trip over fetch. */
export class CookieJar {
  private readonly byOrigin = new Map<string, Map<string, string>>()

  header(url: string): string {
    const jar = this.byOrigin.get(new URL(url).origin)
    return jar ? [...jar].map(([k, v]) => `${k}=${v}`).join('; ') : ''
  }

  store(url: string, response: Response): void {
    const origin = new URL(url).origin
    const jar = this.byOrigin.get(origin) ?? new Map<string, string>()
    this.byOrigin.set(origin, jar)
    for (const cookie of response.headers.getSetCookie()) {
      const [pair, ...attributes] = cookie.split(';')
      const eq = pair!.indexOf('=')
      const name = pair!.slice(0, eq).trim()
      const value = pair!.slice(eq + 1).trim()
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === ''
      if (expired) jar.delete(name)
      else jar.set(name, value)
    }
  }

  get(url: string, name: string): string | undefined {
    return this.byOrigin.get(new URL(url).origin)?.get(name)
  }

  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers)
    const cookie = this.header(url)
    if (cookie) headers.set('cookie', cookie)
    const response = await fetch(url, { ...init, headers, redirect: 'manual' })
    this.store(url, response)
    return response
  }
}

/**
 * Signs `login` in through the gateway's /auth/oidc/login and the provider's pages, following redirects and
 * submitting its login and consent forms; answers the last response (the gateway's callback answer) and its URL.
 */
export async function signIn(gatewayUrl: string, login: string, jar = new CookieJar(), maxSteps = 20): Promise<{ jar: CookieJar; response: Response; url: string }> {
  let url = `${gatewayUrl}/auth/oidc/login`
  let init: RequestInit = {}
  for (let step = 0; step < maxSteps; step++) {
    const response = await jar.fetch(url, init)
    init = {}
    if (response.status >= 300 && response.status < 400) {
      const next = new URL(response.headers.get('location')!, url).toString()
      if (url.startsWith(`${gatewayUrl}/auth/oidc/callback`)) return { jar, response, url }
      url = next
      continue
    }
    if (url.startsWith(`${gatewayUrl}/auth/oidc/callback`)) return { jar, response, url }
    const html = await response.text()
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1]
    const prompt = /name="prompt" value="([^"]+)"/.exec(html)?.[1]
    if (!action || !prompt) throw new Error(`unexpected page at ${url} (${response.status}): ${html.slice(0, 300)}`)
    const form = new URLSearchParams({ prompt, ...(prompt === 'login' ? { login, password: 'any' } : {}) })
    url = new URL(action.replaceAll('&amp;', '&'), url).toString()
    init = { method: 'POST', body: form, headers: { 'content-type': 'application/x-www-form-urlencoded' } }
  }
  throw new Error('sign-in did not finish')
}

export interface WorkloadProvider {
  issuer: string
  /** A client-credentials access token (a JWT for `audience`) from the provider's token endpoint. */
  token(): Promise<string>
  /** The provider restarts (same address) signing with a new key, published under a new `kid` in place of the old. */
  rotate(): Promise<void>
  readonly kid: string
  stop(): Promise<void>
}

/**
 * oidc-provider as a workload identity issuer: a confidential client gets JWT access tokens for `audience` by the
 * client-credentials grant (resource indicators), signed with an ES256 key of the test's, which `rotate` replaces.
 */
export async function startWorkloadProvider(audience: string): Promise<WorkloadProvider> {
  const { exportJWK, generateKeyPair } = await import('jose')
  const server: Server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const clientId = 'ci-runner'
  const clientSecret = 'workload-client-secret-0123456789abcdef'
  let kid = ''
  async function start() {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true })
    kid = `wk-${crypto.randomUUID().slice(0, 8)}`
    const provider = new Provider(issuer, {
      clients: [
        { client_id: clientId, client_secret: clientSecret, grant_types: ['client_credentials'], response_types: [], redirect_uris: [], id_token_signed_response_alg: 'ES256' },
      ],
      jwks: { keys: [{ ...(await exportJWK(privateKey)), kid, alg: 'ES256', use: 'sig' }] as never },
      features: {
        clientCredentials: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => 'urn:ai-gateway',
          useGrantedResource: () => true,
          getResourceServerInfo: () => ({ scope: 'chat', audience, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'ES256' } } }),
        },
      },
    })
    server.removeAllListeners('request')
    server.on('request', provider.callback())
  }
  await start()
  return {
    issuer,
    get kid() {
      return kid
    },
    async token() {
      const response = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}` },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'chat' }),
      })
      const body = (await response.json()) as { access_token?: string }
      if (!response.ok || !body.access_token) throw new Error(`token endpoint: ${response.status} ${JSON.stringify(body)}`)
      return body.access_token
    },
    rotate: start,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/**
 * @module A loopback Microsoft Entra ID token endpoint (`/{tenant}/oauth2/v2.0/token`), written from Microsoft's
 * client credentials flow reference: it checks the tenant, the client, the scope, and either the client secret or
 * a federated client assertion (the workload identity token), answering AADSTS errors as Entra does. Issued tokens
 * are remembered with their expiry, so a mock Azure endpoint can check the bearer token it is sent.
 */

export interface MockEntra {
  /** The authority host (AZURE_AUTHORITY_HOST). */
  url: string
  calls: { token: number }
  accepts(token: string): boolean
  stop(): void
}

export interface MockEntraOptions {
  tenantId: string
  clientId: string
  clientSecret?: string
  federatedToken?: () => string
  expiresIn?: number
}

export const COGNITIVE_SERVICES_SCOPE = 'https://cognitiveservices.azure.com/.default'

function aadError(status: number, error: string, code: number, description: string): Response {
  return Response.json(
    {
      error,
      error_description: `AADSTS${code}: ${description} Trace ID: ${crypto.randomUUID()} Correlation ID: ${crypto.randomUUID()} Timestamp: ${new Date().toISOString()}`,
      error_codes: [code],
      timestamp: new Date().toISOString(),
      trace_id: crypto.randomUUID(),
      correlation_id: crypto.randomUUID(),
    },
    { status },
  )
}

export function startMockEntra(options: MockEntraOptions): MockEntra {
  const calls = { token: 0 }
  const issued = new Map<string, number>()
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(request) {
      const url = new URL(request.url)
      const match = /^\/([^/]+)\/oauth2\/v2\.0\/token$/.exec(url.pathname)
      if (!match || request.method !== 'POST') return new Response('not found', { status: 404 })
      calls.token++
      if (decodeURIComponent(match[1]!) !== options.tenantId) return aadError(400, 'invalid_request', 90002, `Tenant '${match[1]}' not found.`)
      const form = new URLSearchParams(await request.text())
      if (form.get('grant_type') !== 'client_credentials') return aadError(400, 'unsupported_grant_type', 70003, 'The app requested an unsupported grant type.')
      if (form.get('client_id') !== options.clientId)
        return aadError(400, 'unauthorized_client', 700016, `Application with identifier '${form.get('client_id')}' was not found in the directory.`)
      if (form.get('scope') !== COGNITIVE_SERVICES_SCOPE) return aadError(400, 'invalid_scope', 1002012, 'The provided value for scope is not valid.')
      const secret = form.get('client_secret')
      const assertion = form.get('client_assertion')
      if (secret !== null) {
        if (secret !== options.clientSecret)
          return aadError(
            401,
            'invalid_client',
            7000215,
            'Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID.',
          )
      } else if (assertion !== null) {
        if (form.get('client_assertion_type') !== 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer') return aadError(400, 'invalid_request', 50027, 'Invalid JWT token.')
        if (!options.federatedToken || assertion !== options.federatedToken())
          return aadError(400, 'invalid_client', 700213, 'No matching federated identity record found for presented assertion subject.')
      } else return aadError(401, 'invalid_client', 7000218, "The request body must contain the following parameter: 'client_assertion' or 'client_secret'.")
      const expiresIn = options.expiresIn ?? 3599
      const token = `eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.${Buffer.from(JSON.stringify({ aud: 'https://cognitiveservices.azure.com', tid: options.tenantId, n: crypto.randomUUID() })).toString('base64url')}.mocksig`
      issued.set(token, Date.now() + expiresIn * 1000)
      return Response.json({ token_type: 'Bearer', expires_in: expiresIn, ext_expires_in: expiresIn, access_token: token })
    },
  })
  return {
    url: `http://127.0.0.1:${server.port}`,
    calls,
    accepts: (token) => (issued.get(token) ?? 0) > Date.now(),
    stop: () => server.stop(true),
  }
}

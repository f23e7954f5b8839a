/**
 * @module Loopback stand-ins for where AWS credentials come from, written from AWS's public references: STS
 * `AssumeRoleWithWebIdentity` (awsQuery form POST, XML answer and XML errors; it checks the action, version, role
 * and that the web identity token is the one the pod was given), the ECS container credentials endpoint (checks the
 * authorization token) and the EC2 instance metadata service in IMDSv2 mode (a session token from `PUT
 * /latest/api/token` is required on every read). Each hands out temporary credentials with the expiry a test sets,
 * and counts what it was asked.
 */

export interface TemporaryCredentials {
  accessKeyId: string
  secretAccessKey: string
  sessionToken: string
  expiration: Date
}

export interface MockAwsIdentity {
  url: string
  /** Requests by endpoint: `sts`, `ecs`, `imds-token`, `imds-role`, `imds-credentials`. */
  calls: Record<string, number>
  /** What the next credentials will be; each call to `issue` makes a new set. */
  issue(lifetimeMs: number): TemporaryCredentials
  stop(): void
}

export interface MockAwsIdentityOptions {
  roleArn?: string
  webIdentityToken?: () => string
  containerAuthorization?: string
  instanceRole?: string
  /** Lifetime of the credentials handed out (default one hour). */
  lifetimeMs?: () => number
}

let serial = 0

export function startMockAwsIdentity(options: MockAwsIdentityOptions = {}): MockAwsIdentity {
  const calls: Record<string, number> = {}
  const count = (what: string) => {
    calls[what] = (calls[what] ?? 0) + 1
  }
  const issue = (lifetimeMs: number): TemporaryCredentials => {
    serial++
    return {
      accessKeyId: `ASIAMOCK${String(serial).padStart(8, '0')}`,
      secretAccessKey: `mock/secret/${serial}/${crypto.randomUUID()}`,
      sessionToken: `IQoJmock${serial}${crypto.randomUUID().replaceAll('-', '')}`,
      expiration: new Date(Date.now() + lifetimeMs),
    }
  }
  const lifetime = () => options.lifetimeMs?.() ?? 3_600_000
  const imdsTokens = new Set<string>()
  const role = options.instanceRole ?? 'gateway-instance-role'

  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(request) {
      const url = new URL(request.url)
      if (url.pathname === '/sts' || (request.method === 'POST' && url.pathname === '/')) {
        count('sts')
        const form = new URLSearchParams(await request.text())
        if (form.get('Action') !== 'AssumeRoleWithWebIdentity' || form.get('Version') !== '2011-06-15') return stsError(400, 'InvalidAction', 'Could not find operation')
        if (form.get('RoleArn') !== options.roleArn) return stsError(403, 'AccessDenied', `Not authorized to perform sts:AssumeRoleWithWebIdentity on ${form.get('RoleArn')}`)
        if (!options.webIdentityToken || form.get('WebIdentityToken') !== options.webIdentityToken())
          return stsError(400, 'InvalidIdentityToken', "Couldn't retrieve verification key from your identity provider")
        return xml(stsAnswer(issue(lifetime()), options.roleArn!))
      }
      if (url.pathname === '/ecs/credentials') {
        count('ecs')
        if (request.headers.get('authorization') !== options.containerAuthorization) return new Response('Unauthorized', { status: 401 })
        const c = issue(lifetime())
        return Response.json({
          AccessKeyId: c.accessKeyId,
          SecretAccessKey: c.secretAccessKey,
          Token: c.sessionToken,
          Expiration: c.expiration.toISOString(),
          RoleArn: 'arn:aws:iam::123456789012:role/task',
        })
      }
      if (url.pathname === '/latest/api/token' && request.method === 'PUT') {
        count('imds-token')
        if (!request.headers.get('x-aws-ec2-metadata-token-ttl-seconds')) return new Response('', { status: 400 })
        const token = `imds-${crypto.randomUUID()}`
        imdsTokens.add(token)
        return new Response(token)
      }
      if (url.pathname.startsWith('/latest/meta-data/iam/security-credentials')) {
        if (!imdsTokens.has(request.headers.get('x-aws-ec2-metadata-token') ?? '')) return new Response('', { status: 401 })
        const name = url.pathname.replace(/^\/latest\/meta-data\/iam\/security-credentials(-extended)?\/?/, '')
        if (name === '') {
          count('imds-role')
          return new Response(role)
        }
        if (name !== role) return new Response('', { status: 404 })
        count('imds-credentials')
        const c = issue(lifetime())
        return Response.json({
          Code: 'Success',
          LastUpdated: new Date().toISOString(),
          Type: 'AWS-HMAC',
          AccessKeyId: c.accessKeyId,
          SecretAccessKey: c.secretAccessKey,
          Token: c.sessionToken,
          Expiration: c.expiration.toISOString(),
        })
      }
      return new Response('not found', { status: 404 })
    },
  })
  return { url: `http://127.0.0.1:${server.port}`, calls, issue, stop: () => server.stop(true) }
}

function xml(body: string, status = 200): Response {
  return new Response(body, { status, headers: { 'content-type': 'text/xml', 'x-amzn-requestid': crypto.randomUUID() } })
}

function stsAnswer(c: TemporaryCredentials, roleArn: string): string {
  return `<AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <AssumeRoleWithWebIdentityResult>
    <SubjectFromWebIdentityToken>system:serviceaccount:gateway:gateway</SubjectFromWebIdentityToken>
    <Audience>sts.amazonaws.com</Audience>
    <AssumedRoleUser>
      <Arn>${roleArn.replace(':role/', ':assumed-role/')}/ai-gateway</Arn>
      <AssumedRoleId>AROAMOCK:ai-gateway</AssumedRoleId>
    </AssumedRoleUser>
    <Credentials>
      <SessionToken>${c.sessionToken}</SessionToken>
      <SecretAccessKey>${c.secretAccessKey}</SecretAccessKey>
      <Expiration>${c.expiration.toISOString()}</Expiration>
      <AccessKeyId>${c.accessKeyId}</AccessKeyId>
    </Credentials>
    <Provider>oidc.eks.us-east-1.amazonaws.com/id/MOCK</Provider>
  </AssumeRoleWithWebIdentityResult>
  <ResponseMetadata>
    <RequestId>${crypto.randomUUID()}</RequestId>
  </ResponseMetadata>
</AssumeRoleWithWebIdentityResponse>`
}

function stsError(status: number, code: string, message: string): Response {
  return xml(
    `<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>${code}</Code><Message>${message}</Message></Error><RequestId>${crypto.randomUUID()}</RequestId></ErrorResponse>`,
    status,
  )
}

/**
 * @module Checks an AWS Signature Version 4 the way an AWS service does, written from AWS's public description of
 * the algorithm (canonical request, string to sign, derived signing key), independently of the signer under test:
 * the credential scope must name the expected region and service, the access key must be known, `host` and
 * `x-amz-date` must be signed, the date must be within five minutes, a session token must match its key, the
 * payload hash must be the body's, and the signature recomputed from the request as received must be equal.
 */
import { createHash, createHmac } from 'node:crypto'

export interface SigV4Expectation {
  region: string
  service: string
  /** Access key id → secret (and session token, for temporary credentials). */
  keys: Record<string, { secret: string; sessionToken?: string }>
  /** Defaults to now; the test vector passes its own. */
  now?: Date
}

export interface ReceivedRequest {
  method: string
  /** The request target exactly as received: the raw path and query. */
  target: string
  headers: Headers
  body: Uint8Array | string
}

const sha256Hex = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex')
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest()

/** RFC 3986 unreserved characters pass; every other byte is %XX with upper-case hex (AWS's UriEncode). */
export function uriEncode(text: string): string {
  let out = ''
  for (const byte of Buffer.from(text, 'utf8')) {
    const c = String.fromCharCode(byte)
    out += /[A-Za-z0-9\-_.~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`
  }
  return out
}

/** Why the signature is not valid, or undefined when AWS would accept it. */
export function sigV4Problem(request: ReceivedRequest, expect: SigV4Expectation): string | undefined {
  const auth = request.headers.get('authorization') ?? ''
  const match = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(auth)
  if (!match) return 'IncompleteSignature: the Authorization header is not an AWS4-HMAC-SHA256 signature'
  const [, accessKey, date, region, service, signedHeaderList, signature] = match as unknown as string[]
  const key = expect.keys[accessKey!]
  if (!key) return 'UnrecognizedClientException: The security token included in the request is invalid.'
  if (region !== expect.region) return `InvalidSignatureException: Credential should be scoped to a valid region, not '${region}'.`
  if (service !== expect.service) return `InvalidSignatureException: Credential should be scoped to correct service: '${expect.service}'.`
  const signedHeaders = signedHeaderList!.split(';')
  if (!signedHeaders.includes('host') || !signedHeaders.includes('x-amz-date')) return 'InvalidSignatureException: host and x-amz-date must be signed'
  const amzDate = request.headers.get('x-amz-date') ?? ''
  const when = Date.parse(amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'))
  if (!Number.isFinite(when) || !amzDate.startsWith(date!)) return 'IncompleteSignature: x-amz-date is missing or does not match the credential scope'
  if (Math.abs(when - (expect.now ?? new Date()).getTime()) > 5 * 60_000) return 'InvalidSignatureException: Signature expired'
  const token = request.headers.get('x-amz-security-token')
  if (key.sessionToken !== undefined && token !== key.sessionToken) return 'UnrecognizedClientException: The security token included in the request is invalid.'
  const payloadHash = sha256Hex(typeof request.body === 'string' ? request.body : Buffer.from(request.body))
  const declaredHash = request.headers.get('x-amz-content-sha256')
  if (declaredHash !== null && declaredHash !== payloadHash) return 'InvalidSignatureException: x-amz-content-sha256 does not match the body'

  const queryAt = request.target.indexOf('?')
  const rawPath = queryAt === -1 ? request.target : request.target.slice(0, queryAt)
  const rawQuery = queryAt === -1 ? '' : request.target.slice(queryAt + 1)
  // Every service but S3: each path segment, as received (already encoded once), is encoded again.
  const canonicalUri = rawPath.split('/').map(uriEncode).join('/') || '/'
  const canonicalQuery = [...new URLSearchParams(rawQuery)]
    .map(([name, value]) => [uriEncode(name), uriEncode(value)] as const)
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&')
  const canonicalHeaders = signedHeaders.map((name) => `${name}:${(request.headers.get(name) ?? '').trim().replace(/\s+/g, ' ')}\n`).join('')
  const canonicalRequest = [request.method, canonicalUri, canonicalQuery, canonicalHeaders, signedHeaderList, declaredHash ?? payloadHash].join('\n')
  const scope = `${date}/${region}/${service}/aws4_request`
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(canonicalRequest)].join('\n')
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${key.secret}`, date!), region!), service!), 'aws4_request')
  const expected = createHmac('sha256', signingKey).update(stringToSign).digest('hex')
  return expected === signature ? undefined : 'InvalidSignatureException: The request signature we calculated does not match the signature you provided.'
}

/**
 * @module Signs an upstream request with AWS Signature Version 4 for Bedrock (`@smithy/signature-v4`, loaded with
 * the first signature). The request is signed as it will be sent: the path exactly as in the URL (the signer
 * encodes it once more, as SigV4 asks for every service but S3), the query, the host with its port, and a hash
 * of the body. Credentials come from the provider's AwsCredentialSource; the secret key never leaves this process,
 * only the signature and, for temporary credentials, the session token header.
 */
import type { SignatureV4 } from '@smithy/signature-v4'
import { GatewayError } from '../errors/gateway-error.ts'
import type { AwsCredentialSource, AwsCredentials } from './aws-credentials.ts'

export interface SignableRequest {
  method: string
  url: string
  headers: Record<string, string>
  body?: string | Uint8Array
}

/** Adds the signature headers to a request, or says why it cannot be signed. */
export type RequestSigner = (request: SignableRequest) => Promise<Record<string, string> | GatewayError>

export function sigV4Signer(options: { service: string; region: string; credentials: AwsCredentialSource }): RequestSigner {
  // One signer per set of credentials (it caches their signing key for the day); a renewal makes the next one.
  let signer: { for: AwsCredentials; signer: Promise<SignatureV4> } | undefined
  return async (request) => {
    const credentials = await options.credentials.get()
    if (credentials instanceof GatewayError) return credentials
    if (signer?.for !== credentials) signer = { for: credentials, signer: loadSigner(options.service, options.region, credentials) }
    const url = new URL(request.url)
    const query: Record<string, string | string[]> = {}
    for (const [name, value] of url.searchParams) {
      const seen = query[name]
      query[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value]
    }
    const signed = await (await signer.signer).sign(
      {
        method: request.method,
        protocol: url.protocol,
        hostname: url.hostname,
        port: url.port ? Number(url.port) : undefined,
        path: url.pathname,
        query,
        headers: { ...request.headers, host: url.host },
        body: request.body,
      },
      { signingDate: new Date() },
    )
    const headers = { ...signed.headers }
    delete headers.host // fetch sends the same Host from the URL
    return headers
  }
}

async function loadSigner(service: string, region: string, credentials: AwsCredentials): Promise<SignatureV4> {
  const [{ SignatureV4 }, { Sha256 }] = await Promise.all([import('@smithy/signature-v4'), import('@smithy/core/checksum')])
  return new SignatureV4({ service, region, sha256: Sha256, credentials })
}

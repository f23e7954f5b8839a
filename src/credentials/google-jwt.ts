/**
 * @module The signed JWT a Google service account trades for an access token (RFC 7523 bearer grant, RS256), made
 * with WebCrypto from the key file's PKCS #8 private key. The imported key is cached per key text, so a refresh
 * signs without parsing the PEM again.
 */

const keys = new Map<string, Promise<CryptoKey>>()

function importKey(pem: string): Promise<CryptoKey> {
  let key = keys.get(pem)
  if (!key) {
    const base64 = pem.replace(/-----(BEGIN|END) PRIVATE KEY-----/g, '').replace(/\s+/g, '')
    key = crypto.subtle.importKey('pkcs8', Buffer.from(base64, 'base64'), { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, ['sign'])
    // A key that fails to import is not kept, so a corrected file is read again.
    key.catch(() => keys.delete(pem))
    if (keys.size >= 16) keys.clear()
    keys.set(pem, key)
  }
  return key
}

function base64url(data: string | Uint8Array): string {
  return Buffer.from(data).toString('base64url')
}

/** `header.claims.signature`; rejects when the key is not an RSA PKCS #8 private key. */
export async function signJwtRs256(privateKeyPem: string, claims: Record<string, unknown>, keyId?: string): Promise<string> {
  const header: Record<string, string> = { alg: 'RS256', typ: 'JWT' }
  if (keyId) header.kid = keyId
  const input = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`
  const signature = await crypto.subtle.sign('RSASSA-PKCS1-v1_5', await importKey(privateKeyPem), new TextEncoder().encode(input))
  return `${input}.${base64url(new Uint8Array(signature))}`
}

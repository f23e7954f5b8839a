/**
 * @module The managed key secret: `sk-gw-` + 32 random bytes in base64url. The prefix lets secret scanners spot
 * a leaked gateway key; the store keeps only the SHA-256 and a redacted form.
 *
 * A plain (unsalted, fast) SHA-256 is enough because the secret is 256 random bits, not a password: there is no
 * dictionary to try, and a fast hash keeps every request to one digest and one map lookup.
 */

export const KEY_PREFIX = 'sk-gw-'

/** Longer credentials are rejected before hashing; a managed key is 49 characters. */
export const MAX_PRESENTED_KEY_LENGTH = 512

/** @example generateKeySecret() // 'sk-gw-3q2-7wI...' (49 characters) */
export function generateKeySecret(): string {
  return KEY_PREFIX + Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url')
}

export function keyDigest(secret: string): Buffer {
  return new Bun.CryptoHasher('sha256').update(secret).digest()
}

/** SHA-256 hex of the whole secret, the form stored and looked up. */
export function hashKeySecret(secret: string): string {
  return keyDigest(secret).toString('hex')
}

/** @example redactKeySecret('sk-gw-abc...WXYZ') // 'sk-gw-...WXYZ' */
export function redactKeySecret(secret: string): string {
  return `${KEY_PREFIX}...${secret.slice(-4)}`
}

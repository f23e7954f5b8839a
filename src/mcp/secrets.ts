/**
 * @module The MCP gateway's keys, derived (HKDF-SHA256) from one secret: `mcp.token_encryption_key`
 * (MCP_TOKEN_ENCRYPTION_KEY), else the master key, else random per process (then sessions do not survive a
 * restart nor cross replicas, and no upstream token can be stored). Two keys, each for one job:
 * - signing session ids (HMAC-SHA256), so any replica can check a session without shared state;
 * - encrypting upstream OAuth tokens at rest (AES-256-GCM, a random 96-bit nonce per value, the owner and server
 *   bound in as associated data, so a stored value moved to another owner does not decrypt).
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto'

export type SecretSource = 'mcp.token_encryption_key' | 'master_key' | 'ephemeral'

const SALT = 'ai-gateway/mcp/v1'
const SEALED_PREFIX = 'v1.'

export class McpSecrets {
  private readonly signingKey: Buffer
  private readonly encryptionKey: Buffer

  constructor(
    material: string | undefined,
    readonly source: SecretSource,
  ) {
    const ikm = material ? Buffer.from(material, 'utf8') : randomBytes(32)
    this.signingKey = Buffer.from(hkdfSync('sha256', ikm, SALT, 'session-signing', 32))
    this.encryptionKey = Buffer.from(hkdfSync('sha256', ikm, SALT, 'upstream-token-encryption', 32))
  }

  static from(config: { mcp: { token_encryption_key?: string }; master_key?: string }): McpSecrets {
    if (config.mcp.token_encryption_key) return new McpSecrets(config.mcp.token_encryption_key, 'mcp.token_encryption_key')
    if (config.master_key) return new McpSecrets(config.master_key, 'master_key')
    return new McpSecrets(undefined, 'ephemeral')
  }

  /** 16 bytes of HMAC-SHA256 over `text`, base64url. */
  sign(text: string): string {
    return createHmac('sha256', this.signingKey).update(text).digest().subarray(0, 16).toString('base64url')
  }

  verify(text: string, signature: string): boolean {
    const expected = Buffer.from(this.sign(text), 'base64url')
    const given = Buffer.from(signature, 'base64url')
    return given.length === expected.length && timingSafeEqual(given, expected)
  }

  /** `v1.` + base64url(nonce | tag | ciphertext). `binding` must be given again to open it. */
  seal(plaintext: string, binding: string): string {
    const nonce = randomBytes(12)
    const cipher = createCipheriv('aes-256-gcm', this.encryptionKey, nonce)
    cipher.setAAD(Buffer.from(binding, 'utf8'))
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
    return SEALED_PREFIX + Buffer.concat([nonce, cipher.getAuthTag(), body]).toString('base64url')
  }

  /** The plaintext, or undefined when the value was sealed with another key or binding, or was altered. */
  open(sealed: string, binding: string): string | undefined {
    if (!sealed.startsWith(SEALED_PREFIX)) return undefined
    const raw = Buffer.from(sealed.slice(SEALED_PREFIX.length), 'base64url')
    if (raw.length < 28) return undefined
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.encryptionKey, raw.subarray(0, 12))
      decipher.setAAD(Buffer.from(binding, 'utf8'))
      decipher.setAuthTag(raw.subarray(12, 28))
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')
    } catch {
      return undefined
    }
  }
}

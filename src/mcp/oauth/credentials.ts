/**
 * @module The gateway's OAuth credentials for upstream MCP servers, sealed at rest (src/mcp/secrets.ts: AES-256-GCM,
 * bound to server, owner kind and owner, so a row copied to another owner does not open): each caller's tokens
 * (per key, or per user path when the server says `oauth.per: user_path`) and the gateway's own client
 * registration at each server (dynamic client registration, made once and shared by every replica).
 */
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js'
import type { McpStore, StoredMcpCredential } from '../../stores/types.ts'
import type { McpSecrets } from '../secrets.ts'

export interface CredentialOwner {
  kind: 'key' | 'user_path'
  id: string
  /** The caller's user path, kept beside the row so scoped admins see (and revoke) their subtree's. */
  userPath: string | null
}

interface SealedTokens {
  tokens: OAuthTokens
  /** When the tokens were stored (epoch ms): with `expires_in`, when the access token expires. */
  obtainedAt: number
}

const binding = (server: string, kind: string, id: string) => `mcp-credential|${server}|${kind}|${id}`

export class UpstreamCredentials {
  constructor(
    private readonly store: McpStore,
    private readonly secrets: McpSecrets,
  ) {}

  async tokens(server: string, owner: CredentialOwner): Promise<{ tokens: OAuthTokens; obtainedAt: number } | undefined> {
    const row = await this.store.credential(server, owner.kind, owner.id)
    if (!row) return undefined
    const text = this.secrets.open(row.sealed, binding(server, owner.kind, owner.id))
    if (text === undefined) return undefined
    return JSON.parse(text) as SealedTokens
  }

  async saveTokens(server: string, owner: CredentialOwner, tokens: OAuthTokens): Promise<void> {
    const now = Date.now()
    const sealed = this.secrets.seal(JSON.stringify({ tokens, obtainedAt: now } satisfies SealedTokens), binding(server, owner.kind, owner.id))
    const existing = await this.store.credential(server, owner.kind, owner.id)
    await this.store.putCredential({
      id: existing?.id ?? newId(),
      server,
      ownerKind: owner.kind,
      ownerId: owner.id,
      userPath: owner.userPath,
      sealed,
      scope: tokens.scope ?? null,
      expiresAt: typeof tokens.expires_in === 'number' ? new Date(now + tokens.expires_in * 1000).toISOString() : null,
      createdAt: existing?.createdAt ?? new Date(now).toISOString(),
      updatedAt: new Date(now).toISOString(),
    })
  }

  async clientInformation(server: string): Promise<OAuthClientInformationMixed | undefined> {
    const row = await this.store.credential(server, 'client', '')
    const text = row && this.secrets.open(row.sealed, binding(server, 'client', ''))
    return text ? (JSON.parse(text) as OAuthClientInformationMixed) : undefined
  }

  async saveClientInformation(server: string, info: OAuthClientInformationMixed): Promise<void> {
    const now = new Date().toISOString()
    const existing = await this.store.credential(server, 'client', '')
    await this.store.putCredential({
      id: existing?.id ?? newId(),
      server,
      ownerKind: 'client',
      ownerId: '',
      userPath: null,
      sealed: this.secrets.seal(JSON.stringify(info), binding(server, 'client', '')),
      scope: null,
      expiresAt: null,
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
    })
  }

  list(query: Parameters<McpStore['credentials']>[0]): Promise<StoredMcpCredential[]> {
    return this.store.credentials(query)
  }

  byId(id: string): Promise<StoredMcpCredential | undefined> {
    return this.store.credentialById(id)
  }

  delete(id: string): Promise<StoredMcpCredential | undefined> {
    return this.store.deleteCredential(id)
  }
}

const newId = () => `mcpc_${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}`

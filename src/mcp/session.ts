/**
 * @module MCP sessions (`Mcp-Session-Id`) that need no state on any replica: the id is a signed record of who
 * opened it (principal id), on which endpoint (all servers or one), the protocol version agreed at initialize,
 * what the client said it supports (URL and form elicitation, sampling: what may be relayed to it), when it began, and a random nonce. Any replica checks the signature and
 * the binding; a session ends at `session_ttl_seconds` or when the client deletes it, which is remembered in the
 * shared counters store (Redis with several replicas) until the session would have expired anyway.
 *
 * Upstream connections are not per session: they are per server (and per credential owner for OAuth servers),
 * shared by every session on a replica (src/mcp/upstream/). So a session holds nothing that another replica
 * would lack.
 */
import { randomBytes } from 'node:crypto'
import type { Counters } from '../stores/types.ts'
import type { McpSecrets } from './secrets.ts'

export interface McpSession {
  /** The `Mcp-Session-Id` value. */
  id: string
  principalId: string
  /** '' for /mcp, the server's name for /mcp/{server}. */
  scope: string
  protocolVersion: string
  /** Seconds since the epoch. */
  createdAt: number
  /** The client declared URL-mode elicitation (it can be sent a link to authorise an upstream server). */
  urlElicitation: boolean
  /** The client declared form-mode elicitation (an upstream's `elicitation/create` may be relayed to it). */
  formElicitation: boolean
  /** The client declared sampling (an upstream's `sampling/createMessage` may be relayed to it). */
  sampling: boolean
  nonce: string
}

type SessionInit = Pick<McpSession, 'principalId' | 'scope' | 'protocolVersion' | 'urlElicitation'> & Partial<Pick<McpSession, 'formElicitation' | 'sampling'>>

/** What the client supports, as bits of the record's flags field. */
const FLAG = { urlElicitation: 1, formElicitation: 2, sampling: 4 } as const

export type SessionCheck = { ok: true; session: McpSession } | { ok: false; reason: 'malformed' | 'forged' | 'expired' | 'ended' | 'other_principal' | 'other_endpoint' }

const MAX_ID_LENGTH = 1024
/** Session ids whose signature was checked and record decoded, kept so a session's next request skips both. */
const DECODED_CACHE_SIZE = 10_000

export class McpSessions {
  /** id -> its decoded record: an id's signature and contents never change, so checking it once is enough. */
  private readonly decoded = new Map<string, McpSession>()

  constructor(
    private readonly secrets: McpSecrets,
    private readonly counters: Counters,
    private readonly ttlSeconds: number,
    private readonly now: () => number = Date.now,
  ) {}

  open(init: SessionInit): McpSession {
    const createdAt = Math.floor(this.now() / 1000)
    const nonce = randomBytes(16).toString('base64url')
    const session = { formElicitation: false, sampling: false, ...init }
    const flags = (session.urlElicitation ? FLAG.urlElicitation : 0) | (session.formElicitation ? FLAG.formElicitation : 0) | (session.sampling ? FLAG.sampling : 0)
    const payload = Buffer.from(JSON.stringify([init.principalId, init.scope, init.protocolVersion, createdAt, flags, nonce])).toString('base64url')
    return { ...session, createdAt, nonce, id: `${payload}.${this.secrets.sign(payload)}` }
  }

  /** Checks the id's signature, age, binding and whether it was ended. */
  async check(id: string, principalId: string, scope: string): Promise<SessionCheck> {
    const session = this.decodeOnce(id)
    if (!session.ok) return session
    const s = session.session
    if (this.now() / 1000 - s.createdAt >= this.ttlSeconds) return { ok: false, reason: 'expired' }
    if (s.principalId !== principalId) return { ok: false, reason: 'other_principal' }
    if (s.scope !== scope) return { ok: false, reason: 'other_endpoint' }
    if ((await this.counters.get(endedKey(s.nonce))) > 0) return { ok: false, reason: 'ended' }
    return session
  }

  async end(session: McpSession): Promise<void> {
    const remainingMs = (session.createdAt + this.ttlSeconds) * 1000 - this.now()
    if (remainingMs > 0) await this.counters.add(endedKey(session.nonce), 1, remainingMs + 1000)
  }

  private decodeOnce(id: string): SessionCheck {
    const known = this.decoded.get(id)
    if (known) return { ok: true, session: known }
    const decoded = this.decode(id)
    if (decoded.ok) {
      if (this.decoded.size >= DECODED_CACHE_SIZE) this.decoded.delete(this.decoded.keys().next().value!)
      this.decoded.set(id, decoded.session)
    }
    return decoded
  }

  private decode(id: string): SessionCheck {
    if (id.length > MAX_ID_LENGTH) return { ok: false, reason: 'malformed' }
    const dot = id.indexOf('.')
    if (dot <= 0) return { ok: false, reason: 'malformed' }
    const payload = id.slice(0, dot)
    if (!this.secrets.verify(payload, id.slice(dot + 1))) return { ok: false, reason: 'forged' }
    let fields: unknown
    try {
      fields = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'))
    } catch {
      return { ok: false, reason: 'malformed' }
    }
    if (!Array.isArray(fields) || fields.length !== 6) return { ok: false, reason: 'malformed' }
    const [principalId, scope, protocolVersion, createdAt, flags, nonce] = fields
    if (
      typeof principalId !== 'string' ||
      typeof scope !== 'string' ||
      typeof protocolVersion !== 'string' ||
      typeof createdAt !== 'number' ||
      typeof flags !== 'number' ||
      typeof nonce !== 'string'
    ) {
      return { ok: false, reason: 'malformed' }
    }
    const has = (flag: number) => (flags & flag) !== 0
    return {
      ok: true,
      session: {
        id,
        principalId,
        scope,
        protocolVersion,
        createdAt,
        urlElicitation: has(FLAG.urlElicitation),
        formElicitation: has(FLAG.formElicitation),
        sampling: has(FLAG.sampling),
        nonce,
      },
    }
  }
}

const endedKey = (nonce: string) => `mcp:session-ended:${nonce}`

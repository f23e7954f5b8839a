/**
 * @module Which client session a request belongs to, so the audit log can show a whole agent session. Clients
 * say it in different places: a session header (generic ones and those of known IDE agents), or the body
 * (`metadata.session_id`, Claude Code's `metadata.user_id` = `user_…_account_…_session_<uuid>`, the Responses
 * API's `conversation`, Codex's `prompt_cache_key`). The first usable value wins; headers beat the body.
 */

/** Checked in this order. Header names are case-insensitive. */
export const SESSION_HEADERS = ['x-session-id', 'session-id', 'session_id', 'x-claude-code-session-id', 'x-conversation-id', 'conversation-id', 'x-thread-id'] as const

const MAX_SESSION_ID_LENGTH = 200
/** Printable ASCII without spaces: ids, not prose (and nothing that could forge log lines). */
const USABLE = /^[\x21-\x7e]+$/
const CLAUDE_CODE_USER_ID = /_session_([0-9a-fA-F-]{8,})$/

function usable(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined
  const trimmed = value.trim()
  return trimmed.length > 0 && trimmed.length <= MAX_SESSION_ID_LENGTH && USABLE.test(trimmed) ? trimmed : undefined
}

const asObject = (v: unknown): Record<string, unknown> | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined)

/**
 * @example detectSessionId(new Headers({ 'x-session-id': 's-1' }), {}) // 's-1'
 * @example detectSessionId(new Headers(), { metadata: { user_id: 'user_ab_account_cd_session_3f2a…' } }) // '3f2a…'
 */
export function detectSessionId(headers: Headers, body: unknown): string | undefined {
  for (const name of SESSION_HEADERS) {
    const value = usable(headers.get(name))
    if (value) return value
  }
  const b = asObject(body)
  if (!b) return undefined
  const metadata = asObject(b.metadata)
  const fromMetadata = usable(metadata?.session_id) ?? usable(metadata?.conversation_id)
  if (fromMetadata) return fromMetadata
  if (typeof metadata?.user_id === 'string') {
    const match = CLAUDE_CODE_USER_ID.exec(metadata.user_id)
    if (match) return match[1]
  }
  const conversation = usable(b.conversation) ?? usable(asObject(b.conversation)?.id) ?? usable(b.conversation_id)
  if (conversation) return conversation
  return usable(b.prompt_cache_key)
}

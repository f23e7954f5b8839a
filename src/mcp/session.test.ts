import { describe, expect, test } from 'bun:test'
import { MemoryCounters } from '../stores/memory/counters.ts'
import { McpSecrets } from './secrets.ts'
import { McpSessions } from './session.ts'

const secrets = new McpSecrets('a-secret-of-at-least-thirty-two-characters', 'mcp.token_encryption_key')

describe('McpSessions', () => {
  test('a session checks on any instance with the same secret, bound to its principal and endpoint', async () => {
    const counters = new MemoryCounters()
    const here = new McpSessions(secrets, counters, 3600)
    const elsewhere = new McpSessions(new McpSecrets('a-secret-of-at-least-thirty-two-characters', 'mcp.token_encryption_key'), counters, 3600)
    const s = here.open({ principalId: 'key_1', scope: '', protocolVersion: '2025-11-25', urlElicitation: true })
    expect(await elsewhere.check(s.id, 'key_1', '')).toMatchObject({ ok: true, session: { protocolVersion: '2025-11-25', urlElicitation: true } })
    expect(await elsewhere.check(s.id, 'key_2', '')).toEqual({ ok: false, reason: 'other_principal' })
    expect(await elsewhere.check(s.id, 'key_1', 'github')).toEqual({ ok: false, reason: 'other_endpoint' })
  })

  test('what the client supports is part of the record', async () => {
    const sessions = new McpSessions(secrets, new MemoryCounters(), 3600)
    const s = sessions.open({ principalId: 'p', scope: '', protocolVersion: 'v', urlElicitation: false, formElicitation: true, sampling: true })
    expect(await sessions.check(s.id, 'p', '')).toMatchObject({ ok: true, session: { urlElicitation: false, formElicitation: true, sampling: true } })
    const none = sessions.open({ principalId: 'p', scope: '', protocolVersion: 'v', urlElicitation: true })
    expect(await sessions.check(none.id, 'p', '')).toMatchObject({ ok: true, session: { urlElicitation: true, formElicitation: false, sampling: false } })
  })

  test('another secret, an altered payload or garbage is refused', async () => {
    const counters = new MemoryCounters()
    const s = new McpSessions(secrets, counters, 3600).open({ principalId: 'key_1', scope: '', protocolVersion: 'v', urlElicitation: false })
    const other = new McpSessions(new McpSecrets('another-secret-of-thirty-two-characters!', 'mcp.token_encryption_key'), counters, 3600)
    expect((await other.check(s.id, 'key_1', '')).ok).toBe(false)
    const [payload, sig] = s.id.split('.')
    const altered = Buffer.from(JSON.stringify(['key_2', '', 'v', 0, 0, 'n'])).toString('base64url')
    const sessions = new McpSessions(secrets, counters, 3600)
    expect(await sessions.check(`${altered}.${sig}`, 'key_2', '')).toEqual({ ok: false, reason: 'forged' })
    expect(await sessions.check(`${payload}`, 'key_1', '')).toEqual({ ok: false, reason: 'malformed' })
    expect(await sessions.check('x'.repeat(5000), 'key_1', '')).toEqual({ ok: false, reason: 'malformed' })
  })

  test('expires after its TTL; ends when deleted, for every instance sharing the counters', async () => {
    let now = 1_000_000_000_000
    const counters = new MemoryCounters()
    const sessions = new McpSessions(secrets, counters, 60, () => now)
    const s = sessions.open({ principalId: 'p', scope: '', protocolVersion: 'v', urlElicitation: false })
    now += 59_000
    expect((await sessions.check(s.id, 'p', '')).ok).toBe(true)
    now += 2000
    expect(await sessions.check(s.id, 'p', '')).toEqual({ ok: false, reason: 'expired' })
    const t = sessions.open({ principalId: 'p', scope: '', protocolVersion: 'v', urlElicitation: false })
    await sessions.end(t)
    expect(await new McpSessions(secrets, counters, 60, () => now).check(t.id, 'p', '')).toEqual({ ok: false, reason: 'ended' })
  })
})

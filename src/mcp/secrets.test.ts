import { describe, expect, test } from 'bun:test'
import { McpSecrets } from './secrets.ts'

describe('McpSecrets', () => {
  const secrets = new McpSecrets('k'.repeat(40), 'mcp.token_encryption_key')

  test('sealed values open with the same key and binding only; each sealing differs', () => {
    const a = secrets.seal('{"access_token":"at-1"}', 'github|key|key_1')
    const b = secrets.seal('{"access_token":"at-1"}', 'github|key|key_1')
    expect(a).not.toBe(b)
    expect(a).not.toContain('at-1')
    expect(secrets.open(a, 'github|key|key_1')).toBe('{"access_token":"at-1"}')
    expect(secrets.open(a, 'github|key|key_2')).toBeUndefined()
    expect(new McpSecrets('j'.repeat(40), 'mcp.token_encryption_key').open(a, 'github|key|key_1')).toBeUndefined()
    const tampered = a.slice(0, -2) + (a.endsWith('A') ? 'BB' : 'AA')
    expect(secrets.open(tampered, 'github|key|key_1')).toBeUndefined()
  })

  test('the signing and encryption keys differ (one secret, two derived keys)', () => {
    expect(secrets.sign('x')).toBe(new McpSecrets('k'.repeat(40), 'master_key').sign('x'))
    expect(secrets.verify('x', secrets.sign('x'))).toBe(true)
    expect(secrets.verify('y', secrets.sign('x'))).toBe(false)
  })

  test('from configuration: the MCP key, else the master key, else random', () => {
    expect(McpSecrets.from({ mcp: { token_encryption_key: 'k'.repeat(40) }, master_key: 'm'.repeat(40) }).source).toBe('mcp.token_encryption_key')
    expect(McpSecrets.from({ mcp: {}, master_key: 'm'.repeat(40) }).source).toBe('master_key')
    const a = McpSecrets.from({ mcp: {} })
    expect(a.source).toBe('ephemeral')
    expect(a.sign('x')).not.toBe(McpSecrets.from({ mcp: {} }).sign('x'))
  })
})

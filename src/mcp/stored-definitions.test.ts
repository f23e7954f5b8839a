import { expect, test } from 'bun:test'
import { silentLogger } from '../log/logger.ts'
import type { McpStore, StoredMcpRule } from '../stores/types.ts'
import { McpStoredDefinitions, UNREADABLE_RULE } from './stored-definitions.ts'
import { ToolVisibility } from './visibility.ts'
import type { McpSecrets } from './secrets.ts'

function storeWith(rules: StoredMcpRule[]): McpStore {
  return { servers: async () => [], rules: async () => rules } as unknown as McpStore
}

test('a stored visibility rule that no longer validates hides every tool from everyone (fails closed, never widens)', async () => {
  let applied: { rules: { rule: unknown }[] } | undefined
  const rules: StoredMcpRule[] = [
    { id: 'ok', rule: { allow: ['*'] }, createdAt: '2026-01-01T00:00:00.000Z' },
    // Was a deny for one key; a later schema no longer reads it.
    { id: 'broken', rule: { key_id: 'key_1', deny: ['files/delete_*'], colour: 'red' }, createdAt: '2026-01-01T00:00:00.000Z' },
  ]
  const definitions = new McpStoredDefinitions(storeWith(rules), {} as McpSecrets, new Set(), silentLogger, undefined, (d) => {
    applied = d
  })
  expect(await definitions.start()).toBe(true)
  definitions.stop()
  expect(applied!.rules.map((r) => r.rule)).toEqual([{ allow: ['*'], deny: [] }, UNREADABLE_RULE])
  const view = new ToolVisibility(
    applied!.rules.map((r) => r.rule as typeof UNREADABLE_RULE),
    () => 'visible',
  ).viewFor({ keyId: 'key_2', roles: [] })
  expect(view.canSeeTool('files', 'delete_all')).toBe(false)
  expect(view.canSeeTool('files', 'read')).toBe(false)
})

import { expect, test } from 'bun:test'
import type { ApiKeyRecord } from '../stores/types.ts'
import { workflowVisible } from './workflow-scope.ts'

const keys: Record<string, Pick<ApiKeyRecord, 'userPath'>> = { inside: { userPath: '/acme/a/ci' }, outside: { userPath: '/acme/b' }, unbound: { userPath: null } }
const byId = (id: string) => keys[id] as ApiKeyRecord | undefined

test('unscoped principals see every workflow', () => {
  expect(workflowVisible(null, { user_path: '/acme/b', key_id: 'outside' }, byId)).toBe(true)
})

test('a scoped principal sees workflows that apply to everyone, to its subtree, above it, and to its keys', () => {
  expect(workflowVisible('/acme/a', {}, byId)).toBe(true)
  expect(workflowVisible('/acme/a', { model: 'openai/gpt-4o' }, byId)).toBe(true)
  expect(workflowVisible('/acme/a', { user_path: '/acme/a/ci' }, byId)).toBe(true)
  expect(workflowVisible('/acme/a', { user_path: '/acme' }, byId)).toBe(true)
  expect(workflowVisible('/acme/a', { key_id: 'inside' }, byId)).toBe(true)
})

test("another tenant's workflows stay hidden", () => {
  expect(workflowVisible('/acme/a', { user_path: '/acme/b' }, byId)).toBe(false)
  expect(workflowVisible('/acme/a', { user_path: '/acme/ab' }, byId)).toBe(false)
  expect(workflowVisible('/acme/a', { key_id: 'outside' }, byId)).toBe(false)
  expect(workflowVisible('/acme/a', { key_id: 'unbound' }, byId)).toBe(false)
  expect(workflowVisible('/acme/a', { key_id: 'gone' }, byId)).toBe(false)
  expect(workflowVisible('/acme/a', { key_id: 'inside', user_path: '/acme/b' }, byId)).toBe(false)
})

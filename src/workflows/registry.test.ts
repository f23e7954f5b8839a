import { describe, expect, test } from 'bun:test'
import { GatewayError } from '../errors/gateway-error.ts'
import { silentLogger } from '../log/logger.ts'
import type { WorkflowStore } from '../stores/types.ts'
import { makeContext, makeDeps } from '../../test/helpers/plugin-harness.ts'
import { created, fakePlugin } from '../../test/helpers/fake-plugins.ts'
import type { WorkflowVersion } from './definition.ts'
import { WorkflowRegistry } from './registry.ts'

/** The WorkflowStore contract in memory. */
function memoryStore(): WorkflowStore {
  const versions: WorkflowVersion[] = []
  return {
    listActive: async () => versions.filter((v) => v.active),
    history: async (id) => versions.filter((v) => v.id === id).reverse(),
    latestByName: async (name) => versions.filter((v) => v.name === name).at(-1),
    async insertVersion(version) {
      for (const v of versions) if (v.id === version.id) v.active = false
      versions.push(version)
    },
    async deactivate(id) {
      const mine = versions.filter((v) => v.id === id)
      for (const v of mine) v.active = false
      return mine.length > 0
    },
  }
}

const ALL_ON = { audit: true, budget: true, cache: true, failover: true, guardrails: true, usage: true }

async function registry() {
  created.delete('probe')
  const r = new WorkflowRegistry(memoryStore(), { rewrite: [fakePlugin('probe', [])] }, await makeDeps(), ALL_ON, silentLogger)
  await r.load([])
  return r
}

function request(over: { keyId?: string; userPath?: string; model?: string } = {}) {
  const ctx = makeContext({ body: { model: over.model ?? 'openai/gpt-4o', messages: [] } })
  if (over.keyId) ctx.principal = { method: 'managed_key', id: over.keyId, keyId: over.keyId }
  ctx.userPath = over.userPath
  const [providerName, model] = (over.model ?? 'openai/gpt-4o').split('/') as [string, string]
  ctx.target = { providerName, providerType: providerName as 'openai', model, selector: `${providerName}/${model}` }
  return ctx
}

describe('WorkflowRegistry', () => {
  test('the default workflow answers what no scope matches', async () => {
    const r = await registry()
    const selected = r.select(request())
    expect(selected).toBe(r.fallback)
    expect(r.list().map((v) => v.name)).toEqual(['default'])
  })

  test('key beats user path (deeper first), which beats model, which beats provider', async () => {
    const r = await registry()
    const ids: Record<string, string> = {}
    for (const [name, scope] of [
      ['by-provider', { provider: 'openai' }],
      ['by-model', { model: 'openai/gpt-4o' }],
      ['by-team', { user_path: '/acme' }],
      ['by-subteam', { user_path: '/acme/team-a' }],
      ['by-key', { key_id: 'key_1' }],
    ] as const) {
      ids[name] = (await r.upsert({ name, scope }, 'test')).version.versionId
    }
    const chosen = (ctx: ReturnType<typeof request>) => r.select(ctx).workflow.versionId
    expect(chosen(request({ keyId: 'key_1', userPath: '/acme/team-a' }))).toBe(ids['by-key']!)
    expect(chosen(request({ keyId: 'key_2', userPath: '/acme/team-a/x' }))).toBe(ids['by-subteam']!)
    expect(chosen(request({ userPath: '/acme/team-b' }))).toBe(ids['by-team']!)
    expect(chosen(request({ userPath: '/other' }))).toBe(ids['by-model']!)
    expect(chosen(request({ model: 'openai/gpt-4o-mini' }))).toBe(ids['by-provider']!)
    expect(chosen(request({ model: 'mistral/large' }))).toBe(r.fallback.workflow.versionId)
  })

  test('plugins are created once, however many workflows and versions are built', async () => {
    const r = await registry()
    await r.upsert({ name: 'one', scope: { provider: 'openai' }, plugins: { probe: { label: 'one' } } }, 'test')
    await r.upsert({ name: 'one', scope: { provider: 'openai' }, plugins: { probe: { label: 'two' } } }, 'test')
    await r.upsert({ name: 'other', scope: { model: 'x/y' } }, 'test')
    expect(r.list()).toHaveLength(3)
    expect(created.get('probe')).toBe(1)
  })

  test('an unchanged definition makes no new version; invalid plugin settings are a 400 and store nothing', async () => {
    const r = await registry()
    const first = await r.upsert({ name: 'same', scope: { provider: 'openai' } }, 'test')
    const again = await r.upsert({ name: 'same', scope: { provider: 'openai' } }, 'test')
    expect([first.created, again.created, again.version.versionId]).toEqual([true, false, first.version.versionId])
    const bad = await r.upsert({ name: 'bad', plugins: { probe: { label: 7 } } }, 'test').catch((e) => e)
    expect(bad).toBeInstanceOf(GatewayError)
    expect(bad).toMatchObject({ status: 400, code: 'invalid_workflow', param: 'plugins.probe.label' })
    const unknown = await r.upsert({ name: 'bad', plugins: { nope: {} } }, 'test').catch((e) => e)
    expect(unknown).toMatchObject({ status: 400, param: 'plugins.nope' })
    expect(r.list().map((v) => v.name)).not.toContain('bad')
  })

  test('the default workflow cannot be deactivated; others can, and stop matching', async () => {
    const r = await registry()
    const scoped = await r.upsert({ name: 'scoped', scope: { provider: 'openai' } }, 'test')
    expect(r.select(request()).workflow.versionId).toBe(scoped.version.versionId)
    expect(await r.deactivate(scoped.version.id)).toBe(true)
    expect(r.select(request())).toBe(r.fallback)
    const fallbackId = r.list().find((v) => v.name === 'default')!.id
    expect(await r.deactivate(fallbackId).catch((e) => e)).toMatchObject({ status: 400, code: 'default_workflow' })
  })
})

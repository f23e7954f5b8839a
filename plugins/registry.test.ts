import { expect, test } from 'bun:test'
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { createPlugins } from '../src/pipeline/build.ts'
import { chainOrder } from '../src/pipeline/types.ts'
import { makeDeps } from '../test/helpers/plugin-harness.ts'
import { pluginChain, providerAdapters } from './index.ts'

const dir = import.meta.dir
const folders = (path: string) => readdirSync(path).filter((f) => statSync(join(path, f)).isDirectory())
const ids = chainOrder(pluginChain).map(({ plugin }) => plugin.manifest.id)

test('every plugin folder has its place in the chain, once, and every plugin in the chain has its folder', () => {
  const pluginFolders = folders(dir)
    .filter((f) => f !== 'providers')
    .sort()
  expect([...ids].sort()).toEqual(pluginFolders)
})

test('every provider adapter folder is registered under its id', () => {
  expect(Object.keys(providerAdapters).sort()).toEqual(folders(join(dir, 'providers')).sort())
  for (const [id, adapter] of Object.entries(providerAdapters)) expect(adapter.id).toBe(id)
})

test('plugin folders have the fixed file names', () => {
  for (const f of folders(dir).filter((f) => f !== 'providers')) {
    expect(readdirSync(join(dir, f))).toEqual(expect.arrayContaining(['manifest.ts', 'plugin.ts', 'plugin.test.ts']))
  }
})

test('manifest ids are unique and kebab-case', () => {
  expect(new Set(ids).size).toBe(ids.length)
  for (const id of ids) expect(id).toMatch(/^[a-z][a-z0-9-]*$/)
})

test('the orders that matter hold: the body is normalised before validation, the target resolved before model access', () => {
  const before = (a: string, b: string) => expect(ids.indexOf(a)).toBeLessThan(ids.indexOf(b))
  before('ide-request-shapes', 'request-validator')
  before('virtual-model-resolver', 'model-access')
  before('passthrough', 'virtual-model-resolver')
  before('system-prompt', 'parameter-normaliser')
  before('context-slimmer', 'parameter-normaliser')
})

test('the plugins that dispatch stand in the route stage, and only they', async () => {
  for (const { plugin, stage, hooks } of createPlugins(pluginChain, await makeDeps())) {
    expect({ id: plugin.manifest.id, dispatches: hooks.dispatch !== undefined }).toEqual({ id: plugin.manifest.id, dispatches: stage === 'route' })
  }
})

import { expect, test } from 'bun:test'
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { pluginRegistry, providerAdapters } from './index.ts'

const dir = import.meta.dir
const folders = (path: string) => readdirSync(path).filter((f) => statSync(join(path, f)).isDirectory())

test('every plugin folder is registered, and every registered plugin has its folder', () => {
  const pluginFolders = folders(dir)
    .filter((f) => f !== 'providers')
    .sort()
  expect(pluginRegistry.map((p) => p.manifest.id).sort()).toEqual(pluginFolders)
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
  const ids = pluginRegistry.map((p) => p.manifest.id)
  expect(new Set(ids).size).toBe(ids.length)
  for (const id of ids) expect(id).toMatch(/^[a-z][a-z0-9-]*$/)
})

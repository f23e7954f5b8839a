/**
 * Layers that stay put: the core (src/) knows the plugins only through the registries (plugins/index.ts, and the
 * provider manifests' plugins/providers/index.ts, which holds data only), and only the HTTP shell (src/http) knows
 * the web framework.
 */
import { expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

const root = resolve(import.meta.dir, '..')
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g

function sources(dir: string): string[] {
  return [...new Bun.Glob('**/*.{ts,tsx}').scanSync({ cwd: join(root, dir) })].filter((f) => !f.endsWith('.test.ts')).map((f) => join(dir, f))
}

function importsOf(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8')
  return [...text.matchAll(IMPORT)].map((m) => (m[1] ?? m[2])!)
}

const REGISTRIES = ['plugins/index.ts', 'plugins/providers/index.ts']

test('src/ imports nothing from plugins/ but the registries', () => {
  const offending: string[] = []
  for (const file of sources('src')) {
    for (const spec of importsOf(file)) {
      if (!spec.startsWith('.')) continue
      const target = relative(root, resolve(join(root, dirname(file)), spec))
      if (target.startsWith('plugins/') && !REGISTRIES.includes(target)) offending.push(`${file} -> ${target}`)
    }
  }
  expect(offending).toEqual([])
})

test('the provider manifest registry loads manifests only, so the configuration never loads adapter code', () => {
  const imports = importsOf('plugins/providers/index.ts')
  expect(imports.length).toBeGreaterThan(0)
  for (const spec of imports) expect(spec).toMatch(/^\.\/[a-z0-9-]+\/manifest\.ts$/)
  for (const manifest of imports) {
    for (const spec of importsOf(join('plugins/providers', manifest))) expect(spec).toBe('../../../src/providers/manifest.ts')
  }
})

test('only src/http imports the web framework', () => {
  const offending: string[] = []
  for (const file of [...sources('src'), ...sources('plugins')]) {
    if (file.startsWith('src/http/')) continue
    for (const spec of importsOf(file)) if (spec === 'elysia' || spec.startsWith('@elysiajs/')) offending.push(`${file} -> ${spec}`)
  }
  expect(offending).toEqual([])
})

test('the checks see imports (a check that cannot fail proves nothing)', () => {
  expect(importsOf('src/app.ts')).toContain('../plugins/index.ts')
  expect(importsOf('src/http/server.ts')).toContain('elysia')
})

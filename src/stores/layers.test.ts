/**
 * The stores' layers: nothing outside src/stores names a backend folder (sqlite, postgres, memory, redis), and
 * inside it only the backend itself and the composition roots do; the durable write path (write-path/) composes
 * with the backends without naming one; and the audit and usage domains do not reach into the write path (their
 * row codecs and ports are theirs; the stores compose them, the arrows run one way).
 */
import { expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

const root = resolve(import.meta.dir, '../..')
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g
const BACKENDS = ['sqlite', 'postgres', 'memory', 'redis'].map((b) => `src/stores/${b}/`)
/** The files that choose a backend: a process's stores, the primary's, the write thread's, the shared caches', and the copy between two backends. */
const COMPOSITION_ROOTS = ['open.ts', 'primary-stores.ts', 'write-thread-worker.ts', 'shared-caches.ts', 'copy-sqlite-to-postgres.ts'].map((f) => `src/stores/${f}`)

function sources(dir: string): string[] {
  return [...new Bun.Glob('**/*.{ts,tsx}').scanSync({ cwd: join(root, dir) })].filter((f) => !f.endsWith('.test.ts')).map((f) => join(dir, f))
}

/** What `file` imports, as paths from the repository root. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8')
  return [...text.matchAll(IMPORT)]
    .map((m) => (m[1] ?? m[2])!)
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => relative(root, resolve(join(root, dirname(file)), spec)))
}

const offending = (files: string[], forbidden: (file: string, target: string) => boolean) =>
  files.flatMap((file) =>
    importsOf(file)
      .filter((target) => forbidden(file, target))
      .map((target) => `${file} -> ${target}`),
  )

const backendOf = (path: string) => BACKENDS.find((b) => path.startsWith(b))

test('only a backend itself and the stores’ composition roots name a backend folder', () => {
  const everything = ['src', 'plugins'].flatMap(sources)
  // A backend may use the in-process implementations (SQLite's lease is memory's).
  const allowed = (file: string, target: string) =>
    backendOf(target) === backendOf(file) || COMPOSITION_ROOTS.includes(file) || (backendOf(file) !== undefined && backendOf(target) === 'src/stores/memory/')
  expect(offending(everything, (file, target) => backendOf(target) !== undefined && !allowed(file, target))).toEqual([])
})

test('the durable write path names no backend', () => {
  expect(offending(sources('src/stores/write-path'), (_, target) => backendOf(target) !== undefined)).toEqual([])
})

test('the audit and usage domains do not reach into the write path', () => {
  expect(offending([...sources('src/audit'), ...sources('src/usage')], (_, target) => target.startsWith('src/stores/write-path/'))).toEqual([])
})

test('the checks see imports (a check that cannot fail proves nothing)', () => {
  expect(importsOf('src/stores/open.ts')).toContain('src/stores/sqlite/open.ts')
  expect(importsOf('src/stores/sqlite/open.ts')).toContain('src/stores/write-path/audit-writer.ts')
  expect(importsOf('src/stores/write-path/audit-writer.ts')).toContain('src/audit/record.ts')
})

/**
 * Plugins and the core ask an endpoint's row and its API shape (src/protocols/api-shape.ts) what to do, never its
 * id: a table keyed by endpoint ids, or a comparison of `ctx.endpoint` with a literal, silently leaves out every row
 * added later. The ids live in the endpoint table (src/protocols/endpoints.ts) and in tests, nowhere else.
 */
import { expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { ENDPOINTS } from '../src/protocols/endpoints.ts'

const root = resolve(import.meta.dir, '..')
const TABLE = 'src/protocols/endpoints.ts'

function sources(dir: string): string[] {
  return [...new Bun.Glob('**/*.{ts,tsx}').scanSync({ cwd: join(root, dir) })].filter((f) => !f.endsWith('.test.ts')).map((f) => join(dir, f))
}

const LITERAL = String.raw`(['"\x60])[^'"\x60\n]*\1`
const ENDPOINT = String.raw`[\w.?]*\bendpoint\b`
/** `ctx.endpoint === 'x'`, `'x' !== ctx.endpoint`, `switch (ctx.endpoint)`. */
const COMPARISONS = [new RegExp(`${ENDPOINT}\\s*[!=]==?\\s*${LITERAL}`), new RegExp(`${LITERAL}\\s*[!=]==?\\s*${ENDPOINT}`), new RegExp(`switch\\s*\\(\\s*${ENDPOINT}\\s*\\)`)]
/** A table keyed by endpoint ids. */
const ID_TABLES = /\b(Record|Map|Set)<\s*EndpointId\b/
/** The ids that cannot be anything else (a dotted name); `responses` and `messages` are also body fields. */
const DOTTED_IDS = ENDPOINTS.map((e) => e.id).filter((id) => id.includes('.'))

/** What in `text` branches on an endpoint id: one line per finding. */
export function idBranches(text: string, { tables }: { tables: boolean }): string[] {
  const found: string[] = []
  for (const [n, line] of text.split('\n').entries()) {
    const at = `${n + 1}: ${line.trim()}`
    if (COMPARISONS.some((re) => re.test(line))) found.push(at)
    else if (tables && ID_TABLES.test(line)) found.push(at)
    else if (DOTTED_IDS.some((id) => line.includes(`'${id}'`) || line.includes(`"${id}"`) || line.includes(`\`${id}\``))) found.push(at)
  }
  return found
}

function offending(files: string[], tables: boolean): string[] {
  return files.filter((f) => f !== TABLE).flatMap((f) => idBranches(readFileSync(join(root, f), 'utf8'), { tables }).map((line) => `${f}:${line}`))
}

test('no plugin branches on an endpoint id: it asks the row', () => {
  expect(offending(sources('plugins'), true)).toEqual([])
})

test('no core module branches on an endpoint id either', () => {
  expect(offending(sources('src'), false)).toEqual([])
})

test('the scan sees what it looks for (a check that cannot fail proves nothing)', () => {
  const plugin = [
    "if (ctx.endpoint !== 'chat.completions') return CONTINUE",
    "if ('responses' === ctx.endpoint) return",
    'switch (ctx.endpoint) {',
    'const BY_ENDPOINT: Partial<Record<EndpointId, Rewrite>> = {}',
    "const ENDPOINTS = new Set(['messages.count_tokens'])",
  ].join('\n')
  expect(idBranches(plugin, { tables: true })).toHaveLength(5)
  expect(idBranches("if (endpoint(ctx.endpoint).api.systemPrompt) return\nconst messages = body.messages === 'x'", { tables: true })).toEqual([])
  expect(offending([TABLE], true)).toEqual([])
  expect(idBranches(readFileSync(join(root, TABLE), 'utf8'), { tables: true }).length).toBeGreaterThan(0)
})

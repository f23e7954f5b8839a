/**
 * A provider is one folder: its adapter, its tests and its manifest, which declares every provider type it serves
 * with the catalogue row, parameter rules, prices and output limits. These checks fail when a folder lacks a
 * piece, when the registries and the folders disagree, or when two rows claim the same name.
 */
import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { PROVIDER_TYPES } from '../../src/config/provider-catalog.ts'
import { DEFAULT_OUTPUT_LIMITS } from '../../src/models/catalog.ts'
import { DEFAULT_PRICES } from '../../src/usage/default-prices.ts'
import { modelPriceSchema } from '../../src/usage/pricing.ts'
import type { ProviderTypeRow } from '../../src/providers/manifest.ts'
import { providerAdapters } from '../index.ts'
import { providerManifests } from './index.ts'

const dir = import.meta.dir
const folders = readdirSync(dir)
  .filter((f) => statSync(join(dir, f)).isDirectory())
  .sort()

describe('provider folders', () => {
  test('each has the fixed file names', () => {
    for (const folder of folders) expect(readdirSync(join(dir, folder))).toEqual(expect.arrayContaining(['manifest.ts', 'adapter.ts', 'adapter.test.ts']))
  })

  test('each folder has its manifest registered under the folder name, and its adapter under the same id', () => {
    expect(providerManifests.map((m) => m.id).sort()).toEqual(folders)
    expect(Object.keys(providerAdapters).sort()).toEqual(folders)
    for (const manifest of providerManifests) expect(providerAdapters[manifest.id]?.id).toBe(manifest.id)
  })

  test('every provider type row declares its environment prefix, parameter rules, prices and output limits', () => {
    const rows = providerManifests.flatMap((m) => Object.entries(m.types))
    expect(rows.length).toBeGreaterThan(0)
    for (const [type, row] of rows) {
      expect(type).toMatch(/^[a-z][a-z0-9-]*$/)
      expect(row.envPrefix).toMatch(/^[A-Z][A-Z0-9_]*$/)
      expect(['openai', 'translated', 'compatible']).toContain(row.parameters?.style)
      if (row.parameters.style === 'compatible') expect(Array.isArray(row.parameters.acceptsOpenAIOnly)).toBe(true)
      expect(typeof row.prices).toBe('object')
      for (const price of Object.values(row.prices)) expect(modelPriceSchema.safeParse(price).success).toBe(true)
      expect(typeof row.outputLimits).toBe('object')
      for (const limit of Object.values(row.outputLimits)) expect(Number.isInteger(limit) && limit > 0).toBe(true)
    }
  })

  test('no provider type, environment prefix, priced model or output limit is declared twice', () => {
    const rows = providerManifests.flatMap((m) => Object.entries(m.types))
    const once = (names: string[]) => expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([])
    once(rows.map(([type]) => type))
    once(rows.map(([, row]) => row.envPrefix))
    once(rows.flatMap(([, row]) => Object.keys(row.prices)))
    once(rows.flatMap(([, row]) => Object.keys(row.outputLimits)))
  })
})

describe('the central tables are derived from the rows', () => {
  test('the catalogue has every row, with the adapter of the folder that declares it', () => {
    const expected = Object.fromEntries(providerManifests.flatMap((m) => Object.entries(m.types).map(([type, row]) => [type, { ...row, adapter: m.id }])))
    expect({ ...PROVIDER_TYPES } as Record<string, unknown>).toEqual(expected)
    expect(PROVIDER_TYPES.anthropic.adapter).toBe('anthropic')
    expect(PROVIDER_TYPES.groq.adapter).toBe('openai-compatible')
  })

  test("default prices and output limits are the union of the rows, each price with its row's batch discount", () => {
    for (const manifest of providerManifests) {
      for (const row of Object.values(manifest.types) as ProviderTypeRow[]) {
        for (const [model, price] of Object.entries(row.prices))
          expect(DEFAULT_PRICES[model]).toEqual(row.batchPriceMultiplier === undefined ? price : { ...price, batch_multiplier: price.batch_multiplier ?? row.batchPriceMultiplier })
        for (const [model, limit] of Object.entries(row.outputLimits)) expect(DEFAULT_OUTPUT_LIMITS[model]).toBe(limit)
      }
    }
    expect(DEFAULT_PRICES['claude-sonnet-4']?.input).toBe(3)
    expect(DEFAULT_PRICES['claude-sonnet-4']?.batch_multiplier).toBe(0.5)
    expect(DEFAULT_PRICES['deepseek-chat']?.batch_multiplier).toBeUndefined()
    expect(DEFAULT_OUTPUT_LIMITS['gpt-4o']).toBe(16_384)
  })
})

describe('upstream URLs', () => {
  const root = join(dir, '../..')
  const adapterSources = [...new Bun.Glob('**/*.ts').scanSync({ cwd: dir })].filter((f) => !f.endsWith('.test.ts')).map((f) => join(dir, f))
  const coreSources = [...new Bun.Glob('**/*.ts').scanSync({ cwd: join(root, 'src') })].filter((f) => !f.endsWith('.test.ts')).map((f) => join(root, 'src', f))
  /** A base URL put into a template or joined with `+`: a URL not made by `upstreamUrl`. */
  const CONCATENATED = /\$\{[^}]*\bbaseUrl\b[^}]*\}|\bbaseUrl\s*\+|\+\s*[\w.]*\bbaseUrl\b/
  const offending = (files: string[], pattern: RegExp, except: string[] = []) =>
    files.filter((f) => !except.includes(relative(root, f)) && pattern.test(readFileSync(f, 'utf8'))).map((f) => relative(root, f))

  // fetchUpstream and fetchModelIds take an `UpstreamUrl`, which only upstreamUrl makes (src/providers/upstream-url.ts):
  // a provider added later cannot put the model into a URL by concatenation, nor call its upstream another way.
  test('adapters build every URL with upstreamUrl and call upstreams only through fetchUpstream and fetchModelIds', () => {
    expect(adapterSources.length).toBeGreaterThan(4)
    expect(offending(adapterSources, CONCATENATED)).toEqual([])
    expect(offending(adapterSources, /\bfetch\(/)).toEqual([])
    expect(offending([...adapterSources, ...coreSources], /as UpstreamUrl\b/, ['src/providers/upstream-url.ts'])).toEqual([])
  })

  test('the checks see what they look for', () => {
    expect(CONCATENATED.test('url: `${call.provider.baseUrl}/${modelPath(call.target.model)}:${method}`')).toBe(true)
    expect(CONCATENATED.test('url: provider.baseUrl + "/models/" + model')).toBe(true)
    expect(CONCATENATED.test('url: upstreamUrl(call.provider.baseUrl)`/models/${id}:generateContent`')).toBe(false)
    expect(offending(coreSources, /as UpstreamUrl\b/)).toEqual(['src/providers/upstream-url.ts'])
  })
})

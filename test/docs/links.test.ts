/**
 * Every relative link in the README and the docs points at a file that exists and, when it names a section
 * (`file.md#section`, `#section`), at a heading that exists, with GitHub's anchor rules. Links rot when a section
 * is renamed or moved (the README's benchmark history moved to docs/benchmarks.md), and nothing else notices.
 */
import { describe, expect, test } from 'bun:test'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

const root = resolve(import.meta.dir, '../..')
const documents = [
  'README.md',
  'bench/README.md',
  'deploy/README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
].filter((f) => existsSync(join(root, f)))

/** GitHub's heading anchor: lower case, characters other than letters, digits, `-`, `_` and spaces dropped, spaces → `-`; repeats get `-1`, `-2`. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  for (const line of withoutCodeBlocks(markdown).split('\n')) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    if (!heading) continue
    const text = (heading[1] ?? '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
      .replace(/ /g, '-')
    const count = seen.get(slug) ?? 0
    seen.set(slug, count + 1)
    anchors.add(count === 0 ? slug : `${slug}-${count}`)
  }
  return anchors
}

function withoutCodeBlocks(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '')
}

/** Relative link targets in `[text](target)` form, outside code blocks and inline code. */
function linksOf(markdown: string): string[] {
  const text = withoutCodeBlocks(markdown).replace(/`[^`\n]*`/g, '')
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] ?? '').filter((target) => !/^[a-z]+:/i.test(target))
}

describe('relative links in the README and docs', () => {
  test('the documents exist', () => {
    expect(documents).toContain('README.md')
    expect(documents).toContain('docs/benchmarks.md')
  })

  for (const document of documents) {
    test(document, () => {
      const broken: string[] = []
      for (const link of linksOf(readFileSync(join(root, document), 'utf8'))) {
        const [path = '', anchor] = link.split('#', 2)
        const target = path === '' ? join(root, document) : resolve(dirname(join(root, document)), decodeURI(path))
        if (!existsSync(target)) {
          broken.push(`${link}: no file ${relative(root, target)}`)
          continue
        }
        if (anchor === undefined || !target.endsWith('.md') || statSync(target).isDirectory()) continue
        if (!anchorsOf(readFileSync(target, 'utf8')).has(anchor)) broken.push(`${link}: no heading #${anchor} in ${relative(root, target)}`)
      }
      expect(broken).toEqual([])
    })
  }

  test('the anchor rules: punctuation dropped, spaces kept as hyphens, repeats numbered', () => {
    expect([...anchorsOf('# A `GET /admin/audit/log`\n## Scaling: what, and more (2026-11-24)\n## Dup\n## Dup\n```\n# not a heading\n```')]).toEqual([
      'a-get-adminauditlog',
      'scaling-what-and-more-2026-11-24',
      'dup',
      'dup-1',
    ])
    expect(linksOf('see [a](docs/a.md#x), `[b](nope.md)` and [c](https://example.com)')).toEqual(['docs/a.md#x'])
  })
})

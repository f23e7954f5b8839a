import { expect, test } from 'bun:test'
import { exposedName, exposedUri, upstreamName, upstreamUri } from './names.ts'

test('aggregated names split at the first __ and resource URIs keep the server’s own URI intact', () => {
  const all = { kind: 'all' } as const
  expect(exposedName(all, 'gh', 'create__issue')).toBe('gh__create__issue')
  expect(upstreamName(all, 'gh__create__issue')).toEqual({ server: 'gh', name: 'create__issue' })
  expect(upstreamName(all, 'no-separator')).toBeUndefined()
  expect(upstreamName(all, '__x')).toBeUndefined()
  const uri = 'demo://resource/dynamic/text/{id}'
  expect(exposedUri(all, 'e', uri)).toBe('mcp-gateway://e/demo://resource/dynamic/text/{id}')
  expect(upstreamUri(all, exposedUri(all, 'e', 'file:///a/b'))).toEqual({ server: 'e', name: 'file:///a/b' })
  expect(upstreamUri(all, 'file:///a/b')).toBeUndefined()
  const one = { kind: 'server', server: 'gh' } as const
  expect(exposedName(one, 'gh', 'x')).toBe('x')
  expect(upstreamName(one, 'a__b')).toEqual({ server: 'gh', name: 'a__b' })
})

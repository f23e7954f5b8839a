import { describe, expect, test } from 'bun:test'
import { visibilityRuleSchema } from './config.ts'
import { globMatcher, ToolVisibility } from './visibility.ts'

const rules = (...raw: unknown[]) => raw.map((r) => visibilityRuleSchema.parse(r))

describe('globMatcher', () => {
  test('`*` spans any characters, the rest is literal', () => {
    expect(globMatcher('github/*')('github/create_issue')).toBe(true)
    expect(globMatcher('github/*')('gitlab/create_issue')).toBe(false)
    expect(globMatcher('*/delete_*')('any/delete_all')).toBe(true)
    expect(globMatcher('a.b/c')('aXb/c')).toBe(false)
    expect(globMatcher('*')('x/y')).toBe(true)
  })
})

describe('ToolVisibility', () => {
  const visible = () => 'visible' as const
  test('a deny beats an allow among the rules that apply; rules for others do not apply', () => {
    const v = new ToolVisibility(rules({ allow: ['gh/*'] }, { user_path: '/team-a', deny: ['gh/delete_*'] }, { key_id: 'k9', deny: ['gh/*'] }), visible)
    const teamA = v.viewFor({ keyId: 'k1', userPath: '/team-a/alice', roles: [] })
    expect(teamA.canSeeTool('gh', 'list')).toBe(true)
    expect(teamA.canSeeTool('gh', 'delete_repo')).toBe(false)
    const other = v.viewFor({ keyId: 'k2', userPath: '/team-b', roles: [] })
    expect(other.canSeeTool('gh', 'delete_repo')).toBe(true)
    expect(v.viewFor({ keyId: 'k9', roles: [] }).canSeeTool('gh', 'list')).toBe(false)
  })

  test('user_path matches the subtree only (not a sibling with the same prefix)', () => {
    const v = new ToolVisibility(rules({ user_path: '/team-a', deny: ['*'] }), visible)
    expect(v.viewFor({ userPath: '/team-ab', roles: [] }).canSeeTool('s', 't')).toBe(true)
    expect(v.viewFor({ userPath: '/team-a', roles: [] }).canSeeTool('s', 't')).toBe(false)
    expect(v.viewFor({ roles: [] }).canSeeTool('s', 't')).toBe(true)
  })

  test('role rules apply to callers holding the role', () => {
    const v = new ToolVisibility(rules({ role: 'admin', allow: ['ops/*'] }), () => 'hidden')
    expect(v.viewFor({ roles: ['admin'] }).canSeeTool('ops', 'restart')).toBe(true)
    expect(v.viewFor({ roles: ['viewer'] }).canSeeTool('ops', 'restart')).toBe(false)
  })

  test('a server whose tools are hidden by default shows only what a rule allows: a new tool stays hidden', () => {
    const v = new ToolVisibility(rules({ allow: ['db/query'] }), (server) => (server === 'db' ? 'hidden' : 'visible'))
    const view = v.viewFor({ roles: [] })
    expect(view.canSeeTool('db', 'query')).toBe(true)
    expect(view.canSeeTool('db', 'drop_table')).toBe(false)
    expect(view.canSeeTool('other', 'anything')).toBe(true)
  })

  test('prompts and resources go with the tools: usable when one tool is visible, or no tool and not denied', () => {
    const v = new ToolVisibility(rules({ deny: ['a/*', 'b/x'] }), visible)
    const view = v.viewFor({ roles: [] })
    expect(view.canUseServer('a', ['x', 'y'])).toBe(false)
    expect(view.canUseServer('b', ['x', 'y'])).toBe(true)
    expect(view.canUseServer('a', [])).toBe(false)
    expect(view.canUseServer('c', [])).toBe(true)
  })

  test('callers the same rules apply to share one view (its signature is a cache key)', () => {
    const v = new ToolVisibility(rules({ user_path: '/t', deny: ['*'] }), visible)
    expect(v.viewFor({ keyId: 'a', userPath: '/t/1', roles: [] })).toBe(v.viewFor({ keyId: 'b', userPath: '/t/2', roles: [] }))
    expect(v.viewFor({ userPath: '/u', roles: [] }).signature).not.toBe(v.viewFor({ userPath: '/t', roles: [] }).signature)
  })
})

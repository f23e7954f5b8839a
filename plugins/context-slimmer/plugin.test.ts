import { expect, test } from 'bun:test'
import { makeContext, makeDeps, pluginHooks } from '../../test/helpers/plugin-harness.ts'
import { contextSlimmerConfig } from './manifest.ts'
import { contextSlimmer, slimText } from './plugin.ts'

test('whitespace in tool output collapses without touching words', async () => {
  expect(slimText('a    b\t\tc   \n\n\n\n\nd  ', true, true)).toBe('a b c\n\nd')
  expect(slimText('keep  this', false, false)).toBe('keep  this')
})

test('slims tool results and duplicate tools, counts the saved tokens, leaves user text alone', async () => {
  const tool = { type: 'function', function: { name: 'ls', parameters: { type: 'object' } } }
  const listing = Array.from({ length: 40 }, (_, i) => `file_${i}.txt        4096      2026-01-01    `).join('\n')
  const body = {
    model: 'm',
    messages: [
      { role: 'user', content: 'spaces    the user typed' },
      { role: 'tool', tool_call_id: 'c1', content: listing },
    ],
    tools: [tool, tool, { ...tool, function: { ...tool.function, name: 'cat' } }],
  }
  const ctx = makeContext({ body })
  pluginHooks(contextSlimmer, contextSlimmerConfig.parse({ enabled: true }), await makeDeps()).before!(ctx)
  const messages = ctx.body.messages as { content: string }[]
  expect(messages[0]!.content).toBe('spaces    the user typed')
  expect(messages[1]!.content).not.toContain('  ')
  expect((ctx.body.tools as unknown[]).length).toBe(2)
  const revision = ctx.revisions[0]!
  expect(revision).toMatchObject({ rewriter: 'context-slimmer', detail: { tool_messages_slimmed: 1, duplicate_tools_removed: 1 } })
  expect(revision.tokens_saved).toBeGreaterThan(50)
  expect(revision.body).toBeUndefined()
})

test('nothing to slim is a no-change revision', async () => {
  const ctx = makeContext({ body: { model: 'm', messages: [{ role: 'tool', content: 'tidy' }] } })
  pluginHooks(contextSlimmer, contextSlimmerConfig.parse({ enabled: true }), await makeDeps()).before!(ctx)
  expect(ctx.revisions[0]).toMatchObject({ no_change: true, tokens_saved: 0 })
  expect(ctx.revisions[0]!.bytes_after).toBe(ctx.revisions[0]!.bytes_before)
})

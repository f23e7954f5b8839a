import { expect, test } from 'bun:test'
import { makeContext, makeDeps, pluginHooks } from '../../test/helpers/plugin-harness.ts'
import { systemPromptConfig } from './manifest.ts'
import { systemPrompt, withSystemPrompt } from './plugin.ts'

const messages = [
  { role: 'system', content: 'client system' },
  { role: 'developer', content: 'dev note' },
  { role: 'user', content: 'hi' },
]

test('prepend, append and override', async () => {
  expect(withSystemPrompt(messages, 'OP', 'prepend')[0]).toEqual({ role: 'system', content: 'OP\n\nclient system' })
  expect(withSystemPrompt(messages, 'OP', 'append')[0]).toEqual({ role: 'system', content: 'client system\n\nOP' })
  expect(withSystemPrompt(messages, 'OP', 'override')).toEqual([
    { role: 'system', content: 'OP' },
    { role: 'user', content: 'hi' },
  ])
  expect(withSystemPrompt([{ role: 'user', content: 'x' }], 'OP', 'append')[0]).toEqual({ role: 'system', content: 'OP' })
})

test('records a revision and keeps the original body; without a prompt it does not run', async () => {
  const hooks = pluginHooks(systemPrompt, systemPromptConfig.parse({ prompt: 'Be kind.', mode: 'override' }), await makeDeps())
  const original = { model: 'm', messages }
  const ctx = makeContext({ body: original })
  ctx.capture = { ...ctx.capture, bodies: true }
  hooks.before!(ctx)
  expect(ctx.originalBody).toBe(original)
  expect(ctx.body.messages).toEqual([
    { role: 'system', content: 'Be kind.' },
    { role: 'user', content: 'hi' },
  ])
  expect(ctx.revisions).toHaveLength(1)
  expect(ctx.revisions[0]).toMatchObject({ seq: 1, rewriter: 'system-prompt', detail: { mode: 'override' } })
  expect(ctx.revisions[0]!.body).toEqual(ctx.body)
  expect(ctx.revisions[0]!.bytes_after).toBeLessThan(ctx.revisions[0]!.bytes_before)

  const off = makeContext({ body: { model: 'm', messages } })
  pluginHooks(systemPrompt, systemPromptConfig.parse({}), await makeDeps()).before!(off)
  expect(off.revisions).toHaveLength(0)
})

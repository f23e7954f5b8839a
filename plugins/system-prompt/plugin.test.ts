import { expect, test } from 'bun:test'
import { makeContext, makeDeps, pluginHooks } from '../../test/helpers/plugin-harness.ts'
import { systemPromptConfig } from './manifest.ts'
import { messagesWithSystemPrompt, responsesWithSystemPrompt, withSystemPrompt } from '../../src/protocols/system-prompt-placement.ts'
import { systemPrompt } from './plugin.ts'

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
  await hooks.before!(ctx)
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

test('Responses: instructions get the operator text; override also drops system and developer input items', () => {
  const body = {
    instructions: 'client',
    input: [
      { role: 'developer', content: 'dev' },
      { role: 'user', content: 'hi' },
    ],
  }
  expect(responsesWithSystemPrompt(body, 'OP', 'prepend')).toEqual({ ...body, instructions: 'OP\n\nclient' })
  expect(responsesWithSystemPrompt(body, 'OP', 'append').instructions).toBe('client\n\nOP')
  expect(responsesWithSystemPrompt({ input: 'hi' }, 'OP', 'append')).toEqual({ input: 'hi', instructions: 'OP' })
  expect(responsesWithSystemPrompt(body, 'OP', 'override')).toEqual({ instructions: 'OP', input: [{ role: 'user', content: 'hi' }] })
})

test('Messages: system as a string or as blocks; override also drops system messages inside the conversation', () => {
  const blocks = [{ type: 'text', text: 'client', cache_control: { type: 'ephemeral' } }]
  expect(messagesWithSystemPrompt({ system: 'client', messages: [] }, 'OP', 'prepend').system).toBe('OP\n\nclient')
  expect(messagesWithSystemPrompt({ messages: [] }, 'OP', 'append').system).toBe('OP')
  expect(messagesWithSystemPrompt({ system: blocks, messages: [] }, 'OP', 'prepend').system).toEqual([{ type: 'text', text: 'OP' }, ...blocks])
  expect(messagesWithSystemPrompt({ system: blocks, messages: [] }, 'OP', 'append').system).toEqual([...blocks, { type: 'text', text: 'OP' }])
  const withInnerSystem = {
    system: 'client',
    messages: [
      { role: 'user', content: 'a' },
      { role: 'system', content: 'mid' },
    ],
  }
  expect(messagesWithSystemPrompt(withInnerSystem, 'OP', 'override')).toEqual({ system: 'OP', messages: [{ role: 'user', content: 'a' }] })
})

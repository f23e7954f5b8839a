import { expect, test } from 'bun:test'
import { GatewayError } from '../../src/errors/gateway-error.ts'
import { makeContext, makeDeps, pluginHooks } from '../../test/helpers/plugin-harness.ts'
import { unwrapInput } from './custom-tool-calls.ts'
import { ideRequestShapes, needsNormalising, normaliseChatBody } from './plugin.ts'

const hooks = pluginHooks(ideRequestShapes, {}, await makeDeps())

test('a plain chat body is left alone', () => {
  const body = { model: 'm', messages: [{ role: 'user', content: 'x' }], tools: [{ type: 'function', function: { name: 'f' } }] }
  expect(needsNormalising(body)).toBe(false)
  const ctx = makeContext({ body })
  hooks.before!(ctx)
  expect(ctx.body).toBe(body)
})

test('input, instructions and flat tools become messages and nested tools', () => {
  const normalised = normaliseChatBody({
    model: 'm',
    stream: true,
    instructions: 'sys',
    input: [{ role: 'user', content: [{ type: 'input_text', text: 'hi' }] }],
    tools: [
      { type: 'function', name: 'read_file', parameters: { type: 'object' } },
      { type: 'function', function: { name: 'nested' } },
      { type: 'custom', name: 'ApplyPatch', format: { type: 'grammar', syntax: 'lark', definition: 'start: x' } },
    ],
    max_output_tokens: 100,
    reasoning: { effort: 'high' },
  })
  if (normalised instanceof GatewayError) throw normalised
  const out = normalised.body
  expect([...normalised.customTools]).toEqual(['ApplyPatch'])
  expect(out.messages).toEqual([
    { role: 'system', content: 'sys' },
    { role: 'user', content: [{ type: 'text', text: 'hi' }] },
  ])
  expect((out.tools as { function: { name: string } }[]).map((t) => t.function.name)).toEqual(['read_file', 'nested', 'ApplyPatch'])
  expect(out).toMatchObject({ stream: true, max_completion_tokens: 100, reasoning_effort: 'high' })
  expect(out.input).toBeUndefined()
  expect(out.reasoning).toBeUndefined()
})

test('input chat cannot take is refused with a 400 naming the item, not thrown', () => {
  const ctx = makeContext({ body: { model: 'm', input: [{ type: 'computer_call' }] } })
  const decision = hooks.before!(ctx)
  expect(decision).toMatchObject({ kind: 'respond', error: { status: 400, param: 'input[0].type', code: 'unsupported_input_item' } })
  expect(ctx.body.input).toBeDefined()
})

test('custom tool arguments are unwrapped to raw text, whatever the model sent', () => {
  expect(unwrapInput('{"input":"*** Begin Patch"}')).toBe('*** Begin Patch')
  expect(unwrapInput('raw text')).toBe('raw text')
})

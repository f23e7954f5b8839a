import { expect, test } from 'bun:test'
import { gatewayErrors } from '../../src/errors/gateway-error.ts'
import { makeContext, makeDeps, pluginHooks } from '../../test/helpers/plugin-harness.ts'
import { requestValidator } from './plugin.ts'

const hooks = pluginHooks(requestValidator, {}, await makeDeps())

test('a valid chat body continues, unknown fields included', () => {
  const ctx = makeContext({ body: { model: 'a/b', messages: [{ role: 'user', content: 'x' }], top_k: 3 } })
  expect(hooks.before!(ctx)).toEqual({ kind: 'continue' })
})

test('an ingress error found while reading the body is raised here', () => {
  const ctx = makeContext()
  ctx.ingressError = gatewayErrors.invalidJson('bad')
  const decision = hooks.before!(ctx) as { kind: string; response: Response }
  expect(decision.kind).toBe('respond')
  expect(decision.response.status).toBe(400)
  expect(ctx.error?.code).toBe('invalid_json')
})

test('the first schema problem names its field', async () => {
  const ctx = makeContext({ body: { model: 'a/b', messages: [{ content: 'no role' }] } })
  const decision = hooks.before!(ctx) as { kind: string; response: Response }
  expect(decision.kind).toBe('respond')
  expect(ctx.error?.param).toBe('messages.0.role')
})

test('endpoints without a body schema pass', () => {
  expect(hooks.before!(makeContext({ endpoint: 'models.list' }))).toEqual({ kind: 'continue' })
})

test('Anthropic Messages bodies: max_tokens required on messages, not on count_tokens; roles checked', () => {
  const body = { model: 'a/b', messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }] }
  expect(hooks.before!(makeContext({ endpoint: 'messages', body: { ...body, max_tokens: 10, system: 'Be brief.' } }))).toEqual({ kind: 'continue' })
  expect(hooks.before!(makeContext({ endpoint: 'messages.count_tokens', body }))).toEqual({ kind: 'continue' })
  const missing = makeContext({ endpoint: 'messages', body })
  expect((hooks.before!(missing) as { kind: string }).kind).toBe('respond')
  expect(missing.error).toMatchObject({ param: 'max_tokens', message: 'max_tokens: Field required' })
  // Mid-conversation system messages (Claude Code sends them) pass; their placement is the target's business.
  const system = makeContext({ endpoint: 'messages', body: { ...body, max_tokens: 1, messages: [...body.messages, { role: 'system', content: 'x' }] } })
  expect(hooks.before!(system)).toEqual({ kind: 'continue' })
  const tool = makeContext({ endpoint: 'messages.count_tokens', body: { ...body, messages: [{ role: 'tool', content: 'x' }] } })
  hooks.before!(tool)
  expect(tool.error).toMatchObject({ param: 'messages.0.role', message: "messages.0.role: Input should be 'user', 'assistant' or 'system'" })
})

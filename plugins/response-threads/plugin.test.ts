import { expect, test } from 'bun:test'
import type { Outcome } from '../../src/pipeline/types.ts'
import { applyCapture, makeContext, makeDeps, pluginHooks } from '../../test/helpers/plugin-harness.ts'
import { responseThreads } from './plugin.ts'

const deps = await makeDeps({ OPENAI_API_KEY: 'k', MISTRAL_API_KEY: 'k' })
const hooks = pluginHooks(responseThreads, {}, deps)

function request(provider: 'openai' | 'mistral', body: Record<string, unknown>) {
  const ctx = makeContext({ endpoint: 'responses', path: '/v1/responses', body: { model: `${provider}/m`, ...body } })
  ctx.target = { providerName: provider, providerType: provider, model: 'm', selector: `${provider}/m` }
  applyCapture(ctx, [responseThreads], deps)
  return ctx
}

async function answer(ctx: ReturnType<typeof makeContext>, id: string, text: string) {
  const outcome = {
    status: 200,
    responseBody: { id, output: [{ type: 'message', id: 'msg_1', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text }] }] },
  } as unknown as Outcome
  await hooks.onComplete!(ctx, outcome)
}

test('a follow-up on another provider gets the stored thread as input and loses previous_response_id', async () => {
  const first = request('openai', { input: 'first question' })
  expect(first.capture.responseBody).toBe(true)
  expect(await hooks.before!(first)).toEqual({ kind: 'continue' })
  await answer(first, 'resp_native_1', 'first answer')

  const followUp = request('mistral', { input: 'second question', previous_response_id: 'resp_native_1' })
  await hooks.before!(followUp)
  expect(followUp.body.previous_response_id).toBeUndefined()
  expect(followUp.body.input).toEqual([
    { role: 'user', content: 'first question' },
    { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'first answer' }] },
    { role: 'user', content: 'second question' },
  ])
  expect(followUp.originalBody).toMatchObject({ previous_response_id: 'resp_native_1' })
})

test('a follow-up on the provider that answered natively keeps the id', async () => {
  const followUp = request('openai', { input: 'again', previous_response_id: 'resp_native_1' })
  await hooks.before!(followUp)
  expect(followUp.body.previous_response_id).toBe('resp_native_1')
})

test('threads chain: the third turn sees both earlier turns', async () => {
  const second = request('mistral', { input: 'q2', previous_response_id: 'resp_native_1' })
  await hooks.before!(second)
  await answer(second, 'resp_2', 'a2')
  const third = request('mistral', { input: 'q3', previous_response_id: 'resp_2' })
  await hooks.before!(third)
  expect((third.body.input as unknown[]).length).toBe(5)
})

test('an unknown previous id is a 404 on a translated provider, passed on to a native one', async () => {
  const translated = request('mistral', { input: 'x', previous_response_id: 'resp_unknown' })
  expect(((await hooks.before!(translated)) as { kind: string }).kind).toBe('respond')
  expect(translated.error).toMatchObject({ status: 404, param: 'previous_response_id' })
  const native = request('openai', { input: 'x', previous_response_id: 'resp_unknown' })
  expect(await hooks.before!(native)).toEqual({ kind: 'continue' })
})

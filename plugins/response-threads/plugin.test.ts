import { expect, test } from 'bun:test'
import type { Principal } from '../../src/pipeline/context.ts'
import type { Outcome } from '../../src/pipeline/types.ts'
import { applyCapture, makeContext, makeDeps, pluginHooks } from '../../test/helpers/plugin-harness.ts'
import { responseThreads } from './plugin.ts'
import { retrieveStored, storedThreadSlot } from '../../src/protocols/responses/stored-response.ts'

const deps = await makeDeps({ OPENAI_API_KEY: 'k', MISTRAL_API_KEY: 'k' })
const hooks = pluginHooks(responseThreads, {}, deps)

interface Caller {
  principal: Principal
  userPath?: string
}

const ALICE: Caller = { principal: { method: 'managed_key', id: 'key_alice', keyId: 'key_alice' }, userPath: '/acme/team-a' }
const BOB: Caller = { principal: { method: 'managed_key', id: 'key_bob', keyId: 'key_bob' }, userPath: '/acme/team-a' }

function request(provider: 'openai' | 'mistral', body: Record<string, unknown>, caller: Caller = ALICE) {
  const ctx = makeContext({ endpoint: 'responses', path: '/v1/responses', body: { model: `${provider}/m`, ...body } })
  ctx.principal = caller.principal
  ctx.userPath = caller.userPath
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

/** The 404 a follow-up gets for an id it may not continue: the decision is an answer, nothing goes upstream. */
async function expectNotFound(ctx: ReturnType<typeof makeContext>) {
  expect(((await hooks.before!(ctx)) as { kind: string }).kind).toBe('respond')
  expect(ctx.error).toMatchObject({ status: 404, type: 'not_found_error', param: 'previous_response_id', code: 'previous_response_not_found' })
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

test('an id the gateway never stored is a 404 on every provider: a native one is not asked whether it knows it', async () => {
  await expectNotFound(request('mistral', { input: 'x', previous_response_id: 'resp_unknown' }))
  const native = request('openai', { input: 'x', previous_response_id: 'resp_unknown' })
  await expectNotFound(native)
  expect(native.body.previous_response_id).toBe('resp_unknown')
})

test('another key gets the same 404 for a thread it did not make, translated or native', async () => {
  const translated = request('mistral', { input: 'bob reads', previous_response_id: 'resp_2' }, BOB)
  await expectNotFound(translated)
  expect(translated.body.input).toBe('bob reads')
  await expectNotFound(request('openai', { input: 'bob reads', previous_response_id: 'resp_native_1' }, BOB))
})

test('the same key under another user path, and the master key, get the 404 too', async () => {
  await expectNotFound(request('mistral', { input: 'x', previous_response_id: 'resp_2' }, { ...ALICE, userPath: '/acme/team-b' }))
  await expectNotFound(request('mistral', { input: 'x', previous_response_id: 'resp_2' }, { ...ALICE, userPath: undefined }))
  await expectNotFound(request('openai', { input: 'x', previous_response_id: 'resp_native_1' }, { principal: { method: 'master_key', id: 'master' }, userPath: '/acme/team-a' }))
})

test('callers without a key (open mode) are told apart by their user path', async () => {
  const anonymous = (userPath?: string): Caller => ({ principal: { method: 'none', id: 'anonymous' }, userPath })
  const first = request('mistral', { input: 'open mode' }, anonymous('/lab/ann'))
  await hooks.before!(first)
  await answer(first, 'resp_open_1', 'hello ann')
  expect(await hooks.before!(request('mistral', { input: 'x', previous_response_id: 'resp_open_1' }, anonymous('/lab/ann')))).toEqual({ kind: 'continue' })
  await expectNotFound(request('mistral', { input: 'x', previous_response_id: 'resp_open_1' }, anonymous('/lab/ben')))
})

/** A request on a stored response's route (`endpoint`: its row), by `caller`. */
function onStoredResponse(endpoint: 'responses.retrieve' | 'responses.delete', id: string, caller: Caller = ALICE) {
  const ctx = makeContext({ endpoint, method: endpoint === 'responses.delete' ? 'DELETE' : 'GET', path: `/v1/responses/${id}` })
  Object.assign(ctx, { pathParam: id })
  ctx.principal = caller.principal
  ctx.userPath = caller.userPath
  return ctx
}

test("a stored response's route: the owner's thread targets its provider; anyone else is left without thread or target, for the store's 404 after the limits", async () => {
  const own = onStoredResponse('responses.retrieve', 'resp_2')
  expect(await hooks.before!(own)).toEqual({ kind: 'continue' })
  expect(own.target).toMatchObject({ providerName: 'mistral' })
  for (const ctx of [onStoredResponse('responses.retrieve', 'resp_2', BOB), onStoredResponse('responses.retrieve', 'resp_never_made')]) {
    expect(await hooks.before!(ctx)).toEqual({ kind: 'continue' })
    expect(ctx.target).toBeUndefined()
    expect(ctx.state(storedThreadSlot)).toBeUndefined()
    const answer = await retrieveStored(ctx.body, ctx)
    expect(answer).toMatchObject({ status: 404, code: 'response_not_found' })
  }
})

test("a stored response whose provider is no longer configured: the owner's thread, no target; the store answers it after the limits", async () => {
  await deps.stores.responseThreads.save({
    id: 'resp_gone',
    owner: { principalId: 'key_alice', userPath: '/acme/team-a' },
    providerName: 'retired',
    native: false,
    items: [{ role: 'user', content: 'hello' }],
    response: { id: 'resp_gone', object: 'response', model: 'm', output: [] },
  })
  const ctx = onStoredResponse('responses.retrieve', 'resp_gone')
  expect(await hooks.before!(ctx)).toEqual({ kind: 'continue' })
  expect(ctx.target).toBeUndefined()
  expect(ctx.state(storedThreadSlot)?.id).toBe('resp_gone')
  const answer = (await retrieveStored(ctx.body, ctx)) as Response
  expect(answer.status).toBe(200)
  expect(await answer.json()).toMatchObject({ id: 'resp_gone', object: 'response' })
})

test('a delete removes the thread before its answer goes out, and only after a 200', async () => {
  const first = request('mistral', { input: 'to be deleted' })
  await hooks.before!(first)
  await answer(first, 'resp_del', 'bye')
  const refused = onStoredResponse('responses.delete', 'resp_del')
  await hooks.before!(refused)
  await hooks.onResponse!(refused, new Response('{}', { status: 500 }))
  expect(await deps.stores.responseThreads.get('resp_del', { principalId: 'key_alice', userPath: '/acme/team-a' })).toBeDefined()
  const deleted = onStoredResponse('responses.delete', 'resp_del')
  await hooks.before!(deleted)
  const out = hooks.onResponse!(deleted, new Response('{}'))
  expect(out).toBeInstanceOf(Promise)
  await out
  expect(await deps.stores.responseThreads.get('resp_del', { principalId: 'key_alice', userPath: '/acme/team-a' })).toBeUndefined()
  // Any other answer passes synchronously.
  expect(hooks.onResponse!(request('mistral', { input: 'x' }), new Response('{}'))).toBeInstanceOf(Response)
})

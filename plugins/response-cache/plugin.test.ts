import { expect, test } from 'bun:test'
import type { Principal } from '../../src/pipeline/context.ts'
import type { Outcome } from '../../src/pipeline/types.ts'
import { applyCapture, makeContext, makeDeps, pluginHooks } from '../../test/helpers/plugin-harness.ts'
import { chatApi } from '../../src/protocols/chat/shape.ts'
import { cacheKey } from './cache-key.ts'
import { responseCache } from './plugin.ts'

const deps = await makeDeps()

const ALICE: Principal = { method: 'managed_key', id: 'key_alice', keyId: 'key_alice' }
const BOB: Principal = { method: 'managed_key', id: 'key_bob', keyId: 'key_bob' }

interface Caller {
  principal?: Principal
  userPath?: string
  workflowVersionId?: string
  content?: string
}

function request({ principal = ALICE, userPath, workflowVersionId = 'wfv_1', content = 'hello' }: Caller = {}) {
  const ctx = makeContext({ body: { model: 'openai/gpt-4o', messages: [{ role: 'user', content }] } })
  ctx.principal = principal
  ctx.userPath = userPath
  ctx.workflowVersionId = workflowVersionId
  ctx.target = { providerName: 'openai', providerType: 'openai', model: 'gpt-4o', selector: 'openai/gpt-4o' }
  applyCapture(ctx, [responseCache], deps)
  return ctx
}

const completion = (text: string) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1,
  model: 'gpt-4o',
  choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
})

/** What the pipeline hands to onComplete: the route stage's answer, and what reached the client after the output hooks. */
function outcome(routeAnswer: unknown, delivered: unknown = routeAnswer): Outcome {
  return { status: 200, clientAborted: false, bytesOut: 0, responseHeaders: new Headers(), durationNs: 0, routeAnswer, responseBody: delivered }
}

type Hooks = ReturnType<typeof pluginHooks>

/** A miss answered by the upstream with `text` and stored. */
async function miss(hooks: Hooks, caller: Caller, text: string) {
  const ctx = request(caller)
  expect(await hooks.before!(ctx)).toEqual({ kind: 'continue' })
  await hooks.onComplete!(ctx, outcome(completion(text)))
}

/** The cached text `caller` is answered with, or undefined on a miss. */
async function lookup(hooks: Hooks, caller: Caller): Promise<string | undefined> {
  const ctx = request(caller)
  const decision = await hooks.before!(ctx)
  if (decision.kind === 'continue') return undefined
  const response = (decision as { response: Response }).response
  expect(response.headers.get('x-cache')).toBe('HIT')
  return ((await response.json()) as ReturnType<typeof completion>).choices[0]!.message.content
}

test('scope key (the default): one key’s answer is not another key’s hit', async () => {
  const hooks = pluginHooks(responseCache, {}, deps)
  await miss(hooks, { content: 'key scope' }, 'for alice')
  expect(await lookup(hooks, { content: 'key scope' })).toBe('for alice')
  expect(await lookup(hooks, { principal: BOB, content: 'key scope' })).toBeUndefined()
  const master: Principal = { method: 'master_key', id: 'master' }
  expect(await lookup(hooks, { principal: master, content: 'key scope' })).toBeUndefined()
})

test('scope user_path: keys under one user path share, other paths do not', async () => {
  const hooks = pluginHooks(responseCache, { scope: 'user_path' }, deps)
  await miss(hooks, { userPath: '/acme/team-a', content: 'path scope' }, 'team a')
  expect(await lookup(hooks, { principal: BOB, userPath: '/acme/team-a', content: 'path scope' })).toBe('team a')
  expect(await lookup(hooks, { principal: BOB, userPath: '/acme/team-b', content: 'path scope' })).toBeUndefined()
  expect(await lookup(hooks, { principal: BOB, content: 'path scope' })).toBeUndefined()
})

test('scope global: every caller shares', async () => {
  const hooks = pluginHooks(responseCache, { scope: 'global' }, deps)
  await miss(hooks, { content: 'global scope' }, 'for everyone')
  expect(await lookup(hooks, { principal: BOB, userPath: '/other', content: 'global scope' })).toBe('for everyone')
})

test('another workflow version misses, whatever the scope', async () => {
  const hooks = pluginHooks(responseCache, { scope: 'global' }, deps)
  await miss(hooks, { content: 'versioned' }, 'under v1')
  expect(await lookup(hooks, { content: 'versioned' })).toBe('under v1')
  expect(await lookup(hooks, { workflowVersionId: 'wfv_2', content: 'versioned' })).toBeUndefined()
})

test('the route stage’s answer is stored, not the one the output hooks delivered', async () => {
  const hooks = pluginHooks(responseCache, {}, deps)
  const ctx = request({ content: 'stored as answered' })
  await hooks.before!(ctx)
  await hooks.onComplete!(ctx, outcome(completion('mail a@b.example'), completion('mail [EMAIL]')))
  expect(await lookup(hooks, { content: 'stored as answered' })).toBe('mail a@b.example')
})

test('a hit answers in the upstream’s place (the output hooks see it) and keeps X-Cache: HIT through the plugin’s own onResponse; a miss is marked MISS', async () => {
  const hooks = pluginHooks(responseCache, {}, deps)
  await miss(hooks, { content: 'headers' }, 'cached')
  const hit = request({ content: 'headers' })
  const decision = (await hooks.before!(hit)) as { kind: string; response: Response }
  expect(decision.kind).toBe('answer')
  expect(((await hooks.onResponse!(hit, decision.response)) as Response).headers.get('x-cache')).toBe('HIT')
  const fresh = request({ content: 'headers, not cached' })
  await hooks.before!(fresh)
  expect(((await hooks.onResponse!(fresh, Response.json({}))) as Response).headers.get('x-cache')).toBe('MISS')
})

test('the key ignores key order and delivery fields, not content, target, owner or workflow version', () => {
  const parts = { endpoint: 'chat.completions', owner: 'key:key_alice', workflowVersionId: 'wfv_1', selector: 'openai/m' }
  const body = { model: 'm', messages: [{ role: 'user', content: 'x' }], temperature: 0 }
  const a = cacheKey(parts, body, chatApi.cache!.deliveryFields)
  const b = cacheKey(
    parts,
    { temperature: 0, stream: true, stream_options: { include_usage: true }, messages: [{ content: 'x', role: 'user' }], model: 'm' },
    chatApi.cache!.deliveryFields,
  )
  expect(a).toBe(b)
  expect(cacheKey({ ...parts, selector: 'groq/m' }, body, chatApi.cache!.deliveryFields)).not.toBe(a)
  expect(cacheKey(parts, { ...body, messages: [{ role: 'user', content: 'y' }] }, chatApi.cache!.deliveryFields)).not.toBe(a)
  expect(cacheKey({ ...parts, owner: 'key:key_bob' }, body, chatApi.cache!.deliveryFields)).not.toBe(a)
  expect(cacheKey({ ...parts, workflowVersionId: 'wfv_2' }, body, chatApi.cache!.deliveryFields)).not.toBe(a)
})

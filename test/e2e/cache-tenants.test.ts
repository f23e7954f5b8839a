/**
 * The response cache between tenants (issue 26, defect 5): an answer cached for one key is not another key's hit
 * unless the workflow says the cache is shared; a hit passes the workflow's output hooks (guardrails) as an
 * upstream answer does; a new workflow version starts from an empty cache.
 */
import { beforeAll, expect, test } from 'bun:test'
import OpenAI from 'openai'
import { useGatewaySuite } from '../helpers/gateway-suite.ts'

const DEFAULT_WORKFLOW = {
  name: 'default',
  features: { cache: true, guardrails: true },
  plugins: {
    'response-cache': { ttl_seconds: 60 },
    guardrails: { rules: [{ name: 'no-falcon', kind: 'pattern', words: ['falcon'], action: 'block', applies_to: ['output'] }] },
  },
}

const t = useGatewaySuite({
  yaml: () => `workflows:
  - ${JSON.stringify(DEFAULT_WORKFLOW)}
  - name: shared-cache
    scope: { model: openai/gpt-4o-mini }
    features: { cache: true }
    plugins:
      response-cache: { ttl_seconds: 60, scope: global }
`,
})

let alice: OpenAI
let bob: OpenAI

async function createKey(name: string): Promise<string> {
  const res = await fetch(`${t.gw.url}/admin/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.master}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
  })
  expect(res.status).toBe(201)
  return ((await res.json()) as { key: string }).key
}

beforeAll(async () => {
  const client = async (name: string) => new OpenAI({ apiKey: await createKey(name), baseURL: t.gw.baseURL, maxRetries: 0 })
  alice = await client('alice')
  bob = await client('bob')
})

const upstreamCalls = (content: string) => t.openaiMock.requests.filter((r) => r.body?.messages?.[0]?.content === content).length
const ask = (client: OpenAI, content: string, model = 'openai/gpt-4o') => client.chat.completions.create({ model, messages: [{ role: 'user', content }] }).withResponse()

test('Alice’s cached answer is a MISS for Bob’s identical request: each key has its own entries', async () => {
  expect((await ask(alice, 'echo:alice asks')).response.headers.get('x-cache')).toBe('MISS')
  expect((await ask(alice, 'echo:alice asks')).response.headers.get('x-cache')).toBe('HIT')
  const bobs = await ask(bob, 'echo:alice asks')
  expect(bobs.response.headers.get('x-cache')).toBe('MISS')
  expect(bobs.data.choices[0]!.message.content).toBe('alice asks')
  expect(upstreamCalls('echo:alice asks')).toBe(2)
})

test('a workflow with `scope: global` shares its entries between keys', async () => {
  expect((await ask(alice, 'echo:shared', 'openai/gpt-4o-mini')).response.headers.get('x-cache')).toBe('MISS')
  const bobs = await ask(bob, 'echo:shared', 'openai/gpt-4o-mini')
  expect(bobs.response.headers.get('x-cache')).toBe('HIT')
  expect(bobs.data.choices[0]!.message.content).toBe('shared')
  expect(upstreamCalls('echo:shared')).toBe(1)
})

test('a hit passes the output guardrails: a cached answer they block is blocked, and its audit entry says so', async () => {
  // Streams are not checked by output rules (docs/guardrails.md), so the streamed answer is delivered and cached.
  const streamed = alice.chat.completions.stream({ model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'echo:the falcon flies' }] })
  expect((await streamed.finalChatCompletion()).choices[0]!.message.content).toBe('the falcon flies')
  const hit = await fetch(`${t.gw.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${alice.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'echo:the falcon flies' }] }),
  })
  expect(hit.status).toBe(400)
  const body = (await hit.json()) as { error: { code: string; message: string } }
  expect(body.error.code).toBe('guardrail_blocked')
  expect(body.error.message).not.toContain('falcon flies')
  expect(upstreamCalls('echo:the falcon flies')).toBe(1)
  const entry = await t.audit.entryFor(hit.headers.get('x-request-id')!)
  expect(entry).toMatchObject({ cache_type: 'exact', status_code: 400, data: { error_code: 'guardrail_blocked' } })
})

test('a new version of the workflow misses what the previous version cached', async () => {
  expect((await ask(alice, 'echo:versioned')).response.headers.get('x-cache')).toBe('MISS')
  expect((await ask(alice, 'echo:versioned')).response.headers.get('x-cache')).toBe('HIT')
  const changed = { ...DEFAULT_WORKFLOW, plugins: { ...DEFAULT_WORKFLOW.plugins, 'response-cache': { ttl_seconds: 120 } } }
  const saved = await fetch(`${t.gw.url}/admin/workflows`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.master}`, 'content-type': 'application/json' },
    body: JSON.stringify(changed),
  })
  // 201: a new version (200 would mean the definition was unchanged).
  expect(saved.status).toBe(201)
  expect((await ask(alice, 'echo:versioned')).response.headers.get('x-cache')).toBe('MISS')
  expect(upstreamCalls('echo:versioned')).toBe(2)
})

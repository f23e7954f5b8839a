/**
 * The route inventory (issue 27): every routed row of the endpoint table is governed as its `governance` says,
 * proved against a real gateway for each row. Authentication and the audit entry hold for every row; the steps a
 * row names are each shown to act: `modelAccess` (a 403 for a model the key may not use), `limits` (a rate limit's
 * 429 and a budget's refusal), `failover` (another target answers after the primary failed; where it is off, the
 * failure stays the answer and no other target is called), `usage` (a priced usage record in the audit entry),
 * `guardrails` (a blocking rule refuses the request).
 *
 * A row added later without a probe below fails the type check and the first test; a governance step added later
 * without its proof below fails the type check.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { ENDPOINTS, type Endpoint, type Governance } from '../../src/protocols/endpoints.ts'
import { useGatewaySuite } from '../helpers/gateway-suite.ts'
import { openaiError, serveRecording } from '../helpers/mock-openai-upstream.ts'

/** A provider whose every answer is a 503: the failing primary of each row's failover. */
const down = serveRecording(() => openaiError(503, 'The engine is currently overloaded, please try again later.', 'server_error', null))
afterAll(() => down.stop())

/** The word the guardrails rule blocks. */
const BLOCKED = 'zanzibarite'

type RoutedRow = Extract<(typeof ENDPOINTS)[number], { local: null }>
type RoutedId = RoutedRow['id']

interface Probe {
  method: string
  path: string
  body: unknown
}

interface RowProbe {
  /**
   * The request, to the model `selector` (`<provider>/<model>`), carrying `text` where a model reads it; `made` is
   * what `prepare` made for the calling key (a stored response's id).
   */
  request(selector: string, text: string, made: string): Probe
  /** What the request needs that the calling key must make first (a response of its own), before any limit is set. */
  prepare?: (key: string) => Promise<string>
  /** A selector that answers, with a bundled price. */
  ok: string
  /** A selector on the provider that always fails, whose failover target (where the row fails over) is `ok`; null for a row whose path, not a model, names the target. */
  failing: string | null
}

/** A response the key made and the gateway stored (`background` for one that can still be cancelled). */
async function storedResponse(key: string, background = false): Promise<string> {
  const created = await send({ method: 'POST', path: '/v1/responses', body: { model: 'openai/gpt-4o-mini', input: 'remember me', background } }, key)
  if (created.status !== 200) throw new Error(`creating a response: ${created.status} ${JSON.stringify(created.body)}`)
  return created.body.id
}

/** A row about one stored response: its path names the response the key made. */
const storedResponseRow = (method: string, path: (id: string) => string, background = false): RowProbe => ({
  request: (_selector, _text, id) => ({ method, path: path(id), body: undefined }),
  prepare: (key) => storedResponse(key, background),
  ok: 'openai/gpt-4o-mini',
  failing: null,
})

/** A speech-to-text upload: the text a model reads is its `prompt`. */
function audioForm(selector: string, text: string): FormData {
  const form = new FormData()
  form.append('model', selector)
  form.append('prompt', text)
  form.append('file', new File([new Uint8Array(2048).fill(7)], 'probe.mp3', { type: 'audio/mpeg' }))
  return form
}

function imageEditForm(selector: string, text: string): FormData {
  const form = new FormData()
  form.append('model', selector)
  form.append('prompt', text)
  form.append('image', new File([new Uint8Array(2048).fill(9)], 'probe.png', { type: 'image/png' }))
  return form
}

const chatBody = (selector: string, text: string) => ({ model: selector, messages: [{ role: 'user', content: text }] })

/** One probe per routed row: the type requires every one (rows answered by the gateway itself have no model). */
const PROBES: Record<RoutedId, RowProbe> = {
  'chat.completions': { request: (s, text) => ({ method: 'POST', path: '/v1/chat/completions', body: chatBody(s, text) }), ok: 'openai/gpt-4o-mini', failing: 'down/chat' },
  responses: { request: (s, text) => ({ method: 'POST', path: '/v1/responses', body: { model: s, input: text } }), ok: 'openai/gpt-4o-mini', failing: 'down/responses' },
  messages: {
    request: (s, text) => ({ method: 'POST', path: '/v1/messages', body: { ...chatBody(s, text), max_tokens: 64 } }),
    ok: 'anthropic/claude-sonnet-4-5',
    failing: 'down/messages',
  },
  'messages.count_tokens': {
    request: (s, text) => ({ method: 'POST', path: '/v1/messages/count_tokens', body: chatBody(s, text) }),
    ok: 'anthropic/claude-sonnet-4-5',
    // Counted natively only by an Anthropic provider: an OpenAI-type one is answered by the gateway's estimate and never fails.
    failing: 'down-anthropic/claude',
  },
  'responses.input_tokens': {
    request: (s, text) => ({ method: 'POST', path: '/v1/responses/input_tokens', body: { model: s, input: text } }),
    ok: 'openai/gpt-4o-mini',
    failing: 'down/responses',
  },
  'responses.retrieve': storedResponseRow('GET', (id) => `/v1/responses/${id}`),
  'responses.delete': storedResponseRow('DELETE', (id) => `/v1/responses/${id}`),
  'responses.cancel': storedResponseRow('POST', (id) => `/v1/responses/${id}/cancel`, true),
  'responses.input_items': storedResponseRow('GET', (id) => `/v1/responses/${id}/input_items`),
  completions: {
    request: (s, text) => ({ method: 'POST', path: '/v1/completions', body: { model: s, prompt: text, max_tokens: 16 } }),
    ok: 'openai/gpt-3.5-turbo-instruct',
    failing: 'down/instruct',
  },
  embeddings: { request: (s, text) => ({ method: 'POST', path: '/v1/embeddings', body: { model: s, input: text } }), ok: 'openai/text-embedding-3-small', failing: 'down/embed' },
  'images.generations': {
    request: (s, text) => ({ method: 'POST', path: '/v1/images/generations', body: { model: s, prompt: text } }),
    ok: 'openai/gpt-image-1',
    failing: 'down/image',
  },
  'images.edits': {
    request: (s, text) => ({ method: 'POST', path: '/v1/images/edits', body: imageEditForm(s, text) }),
    ok: 'openai/gpt-image-1',
    failing: 'down/image',
  },
  'audio.speech': {
    request: (s, text) => ({ method: 'POST', path: '/v1/audio/speech', body: { model: s, input: text, voice: 'alloy' } }),
    ok: 'openai/tts-1',
    failing: 'down/speech',
  },
  moderations: {
    request: (s, text) => ({ method: 'POST', path: '/v1/moderations', body: { model: s, input: text } }),
    ok: 'openai/omni-moderation-latest',
    failing: 'down/moderation',
  },
  rerank: {
    request: (s, text) => ({ method: 'POST', path: '/v1/rerank', body: { model: s, query: text, documents: ['a lighthouse', text] } }),
    ok: 'openai/jina-reranker-v2-base-multilingual',
    failing: 'down/rerank',
  },
  'audio.transcriptions': {
    request: (s, text) => ({ method: 'POST', path: '/v1/audio/transcriptions', body: audioForm(s, text) }),
    ok: 'openai/whisper-1',
    failing: 'down/whisper',
  },
  'audio.translations': { request: (s, text) => ({ method: 'POST', path: '/v1/audio/translations', body: audioForm(s, text) }), ok: 'openai/whisper-1', failing: 'down/whisper' },
  passthrough: {
    // The provider is the path's, the model the body's.
    request: (s, text) => {
      const [provider, model] = s.split('/') as [string, string]
      return { method: 'POST', path: `/p/${provider}/v1/chat/completions`, body: chatBody(model, text) }
    },
    ok: 'openai/gpt-4o-mini',
    failing: 'down/chat',
  },
}

const ROUTED = ENDPOINTS.filter((row): row is RoutedRow => row.local === null)

const failoverTargets = [...new Map(Object.values(PROBES).flatMap((p) => (p.failing ? [[p.failing, p.ok] as const] : []))).entries()]
  .map(([failing, ok]) => `          ${JSON.stringify(failing)}: [${JSON.stringify(ok)}]`)
  .join('\n')

const t = useGatewaySuite({
  families: ['openai', 'anthropic'],
  env: { LOGGING_AUDIT_FLUSH_INTERVAL_MS: '5' },
  yaml: () => `providers:
  down: { type: openai, api_key: k, base_url: "${down.origin}/v1", models: [chat, responses, messages, instruct, embed, image, speech, moderation, rerank, whisper] }
  down-anthropic: { type: anthropic, api_key: k, base_url: "${down.origin}", models: [claude] }
# Moderations are free at OpenAI's prices: priced here so that the usage proof sees a price applied.
pricing:
  openai/omni-moderation-latest: { input: 1, output: 0 }
workflows:
  - name: default
    features: { failover: true, budget: true, usage: true, guardrails: true }
    plugins:
      failover:
        max_retries: 0
        targets:
${failoverTargets}
      guardrails:
        rules:
          - { name: inventory-word, kind: pattern, words: [${BLOCKED}], action: block }
`,
})

interface Answer {
  status: number
  headers: Headers
  body: any
}

async function send(probe: Probe, key?: string): Promise<Answer> {
  const res = await fetch(`${t.gw.url}${probe.path}`, {
    method: probe.method,
    headers: { ...(probe.body === undefined || probe.body instanceof FormData ? {} : { 'content-type': 'application/json' }), ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: probe.body === undefined ? undefined : probe.body instanceof FormData ? probe.body : JSON.stringify(probe.body),
  })
  const text = await res.text()
  let body: unknown = text
  try {
    body = JSON.parse(text)
  } catch {}
  return { status: res.status, headers: res.headers, body }
}

async function admin(path: string, body: unknown): Promise<any> {
  const res = await send({ method: 'POST', path: `/admin${path}`, body }, t.master)
  if (res.status !== 201) throw new Error(`POST /admin${path} ${JSON.stringify(body)}: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body
}

const newKey = (name: string, fields: Record<string, unknown> = {}): Promise<{ id: string; key: string }> => admin('/keys', { name, ...fields })

const errorCode = (answer: Answer) => answer.body?.error?.code

/** What the probe needs made by `key`, then the probe's request with `selector` and `text`. */
async function prepared(probe: RowProbe, key: string): Promise<(selector: string, text: string) => Probe> {
  const made = probe.prepare ? await probe.prepare(key) : ''
  return (selector, text) => probe.request(selector, text, made)
}

/** The audit entry of an answer, once stored. */
const entryOf = (answer: Answer) => t.audit.entryFor(answer.headers.get('x-request-id')!)

/** How each governance step is proved on a row that names it; `undefined` for a step the row leaves off that has nothing to show. */
type Proof = (row: RoutedRow, probe: RowProbe) => Promise<void>

const STEPS: Record<keyof Governance, { on: Proof; off?: Proof }> = {
  modelAccess: {
    async on(row, probe) {
      const key = await newKey(`${row.id} other model only`, { allowed_models: ['openai/gpt-4o'] })
      const request = await prepared(probe, key.key)
      const refused = await send(request(probe.ok, 'hello'), key.key)
      expect({ row: row.id, status: refused.status, code: errorCode(refused) }).toEqual({ row: row.id, status: 403, code: 'model_not_allowed' })
    },
  },
  limits: {
    async on(row, probe) {
      const limited = await newKey(`${row.id} one a minute`)
      // Each request its own (a deleted response is not there to delete again), made before the limit is set.
      const [first, second] = [await prepared(probe, limited.key), await prepared(probe, limited.key)]
      await admin('/rate-limits', { scope: { key_id: limited.id }, requests_per_minute: 1 })
      expect({ row: row.id, status: (await send(first(probe.ok, 'first'), limited.key)).status }).toEqual({ row: row.id, status: 200 })
      const limitedAnswer = await send(second(probe.ok, 'second'), limited.key)
      expect({ row: row.id, status: limitedAnswer.status, code: errorCode(limitedAnswer) }).toEqual({ row: row.id, status: 429, code: 'rate_limit_exceeded' })

      const budgeted = await newKey(`${row.id} no money`)
      const budgetedRequest = await prepared(probe, budgeted.key)
      await admin('/budgets', { scope: { key_id: budgeted.id }, window: 'day', limit_usd: 0.000_000_1 })
      const refused = await send(budgetedRequest(probe.ok, 'costly'), budgeted.key)
      expect({ row: row.id, status: refused.status, code: errorCode(refused) }).toEqual({ row: row.id, status: 429, code: 'budget_exceeded' })
    },
  },
  failover: {
    async on(row, probe) {
      const before = down.requests.length
      const answer = await send((await prepared(probe, t.master))(probe.failing!, 'fail over'), t.master)
      expect({ row: row.id, status: answer.status }).toEqual({ row: row.id, status: 200 })
      expect(down.requests.length).toBeGreaterThan(before)
      const attempts = ((await entryOf(answer)).data as { attempts: { kind: string; success: boolean }[] }).attempts
      expect({ row: row.id, attempts: attempts.map((a) => `${a.kind}:${a.success}`) }).toEqual({ row: row.id, attempts: ['primary:false', 'failover:true'] })
    },
    async off(row, probe) {
      const before = t.openaiMock.requests.length + t.anthropicMock.requests.length
      const answer = await send((await prepared(probe, t.master))(probe.failing!, 'stay'), t.master)
      expect({ row: row.id, status: answer.status }).toEqual({ row: row.id, status: 503 })
      expect(t.openaiMock.requests.length + t.anthropicMock.requests.length).toBe(before)
    },
  },
  usage: {
    async on(row, probe) {
      const answer = await send((await prepared(probe, t.master))(probe.ok, 'priced'), t.master)
      expect({ row: row.id, status: answer.status }).toEqual({ row: row.id, status: 200 })
      const entry = await t.audit.eventually(
        () => entryOf(answer),
        (e) => e.usage !== undefined,
      )
      expect({ row: row.id, priced: (entry.usage?.cost_usd ?? 0) > 0 }).toEqual({ row: row.id, priced: true })
    },
  },
  guardrails: {
    async on(row, probe) {
      const blocked = await send((await prepared(probe, t.master))(probe.ok, `tell me about ${BLOCKED}`), t.master)
      expect({ row: row.id, status: blocked.status, code: errorCode(blocked) }).toEqual({ row: row.id, status: 400, code: 'guardrail_blocked' })
    },
  },
}

test('every routed row has a probe, and only routed rows', () => {
  expect(ROUTED.length).toBeGreaterThan(0)
  expect(Object.keys(PROBES).sort()).toEqual(ROUTED.map((row) => row.id).sort())
})

describe.each(ROUTED.map((row) => [row.id, row] as const))('%s', (_id, row: RoutedRow & Endpoint) => {
  const probe = PROBES[row.id]

  test('authenticated: no key is a 401', async () => {
    const answer = await send((await prepared(probe, t.master))(probe.ok, 'anonymous'))
    expect(answer.status).toBe(401)
  })

  test('audited: the answer has its entry, on the row’s path', async () => {
    const request = (await prepared(probe, t.master))(probe.ok, 'audited')
    const answer = await send(request, t.master)
    expect(answer.status).toBe(200)
    const entry = await entryOf(answer)
    expect({ method: entry.method, path: entry.path, status: entry.status_code }).toEqual({ method: request.method, path: request.path, status: 200 })
  })

  for (const step of Object.keys(STEPS) as (keyof Governance)[]) {
    const proof = row.governance[step] ? STEPS[step].on : STEPS[step].off
    // A row whose path names its target (a stored response's provider) has no failing selector to show failover off with.
    if (proof && (row.governance[step] || probe.failing || step !== 'failover')) test(`${step}: ${row.governance[step] ? 'on' : 'off'}`, () => proof(row, probe), 15_000)
  }
})

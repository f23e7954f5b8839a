import { expect, test } from 'bun:test'
import { type AnswerKind, endpoint, ENDPOINTS, isCacheable, isMetered } from './endpoints.ts'
import { STORED_RESPONSE_APIS } from './responses/lifecycle-shape.ts'

test('ids and routes are unique; the catch-all comes last', () => {
  expect(new Set(ENDPOINTS.map((e) => e.id)).size).toBe(ENDPOINTS.length)
  expect(new Set(ENDPOINTS.map((e) => `${e.method} ${e.path}`)).size).toBe(ENDPOINTS.length)
  expect(ENDPOINTS.at(-1)).toMatchObject({ id: 'not_found', method: 'ALL', path: '/v1/*' })
  for (const e of ENDPOINTS) expect(endpoint(e.id)).toBe(e)
})

/** One row's facts that must agree, as an object, so a failure names the row. */
const facts = (e: (typeof ENDPOINTS)[number], pairs: Record<string, boolean>) => ({ id: e.id, ...pairs })

test('every row is consistent: checked JSON bodies, local or routed, governance backed by what its API has', () => {
  for (const e of ENDPOINTS) {
    const { api, governance } = e
    const answers: readonly AnswerKind[] = e.answers
    const row = {
      'a JSON body is checked': e.body !== 'json' || 'request' in e,
      'a local row is answered by the gateway, never upstream': (e.local === null) === (api.upstream !== null),
      // A stored response's routes name the response, whose provider the response-threads plugin targets.
      'a routed row names a model or a stored response, a local one neither': e.local === null ? governance.modelAccess !== STORED_RESPONSE_APIS.has(api) : !governance.modelAccess,
      'failover only where a model is routed': !governance.failover || governance.modelAccess,
      'usage is metered only on routed rows of an API that reports it': !governance.usage || (governance.modelAccess && api.usage !== null),
      'guardrails only where the API has texts': !governance.guardrails || api.guardedTexts !== null,
      'streamed answers exactly when the API has a stream codec (a verbatim row passes them unread)': e.verbatim || answers.includes('sse') === (api.streamCodec !== null),
      'a verbatim row reads its body as bytes, and nothing rewrites it':
        !e.verbatim || (e.body === 'bytes' && api.systemPrompt === null && api.toolResults === null && api.cache === null),
      'answers are declared': answers.length > 0,
      'a cacheable API answers JSON': api.cache === null || answers.includes('json'),
      'a stream replay only where answers stream': !api.cache?.replayStream || answers.includes('sse'),
    }
    expect(facts(e, row)).toEqual(facts(e, Object.fromEntries(Object.keys(row).map((k) => [k, true]))))
  }
})

test('the capture selections read the rows', () => {
  expect(ENDPOINTS.filter(isMetered).map((e) => e.id)).toEqual([
    'chat.completions',
    'responses',
    'messages',
    'completions',
    'embeddings',
    'passthrough',
    'images.generations',
    'images.edits',
    'audio.speech',
    'moderations',
    'rerank',
    'audio.transcriptions',
    'audio.translations',
  ])
  expect(ENDPOINTS.filter(isCacheable).map((e) => e.id)).toEqual(['chat.completions', 'completions', 'embeddings'])
})

test('the request schemas report the offending field', () => {
  const chat = endpoint('chat.completions').request!.safeParse({ model: 'm', messages: 'hi' })
  expect(chat.success).toBe(false)
  expect(chat.error!.issues[0]!.path).toEqual(['messages'])
})

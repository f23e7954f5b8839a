/**
 * Property-based: hostile request bodies (random JSON of any shape, wrong types, deep nesting, large and unusual
 * unicode strings, broken JSON) on every JSON endpoint get an answer below 500, never a stall (issue #17 keep-it-fixed).
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import fc from 'fast-check'
import { startGateway, type RunningGateway } from '../helpers/gateway.ts'
import { startFaultUpstream, type FaultUpstream } from '../helpers/fault-upstream.ts'

const MASTER = 'master-key-fuzz-requests-0123456789abcdef'
let upstream: FaultUpstream
let gw: RunningGateway

beforeAll(async () => {
  upstream = startFaultUpstream()
  gw = await startGateway({ GATEWAY_MASTER_KEY: MASTER, OPENAI_API_KEY: 'sk-fuzz-upstream-0000000000000000', OPENAI_BASE_URL: upstream.url })
}, 30_000)
afterAll(async () => {
  await gw.stop()
  upstream.stop()
})

const PATHS = ['/v1/chat/completions', '/v1/responses', '/v1/messages', '/v1/messages/count_tokens']

const hostileString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.string({ unit: 'grapheme', maxLength: 200 }),
  fc.constantFrom('y'.repeat(20_000), '\u0000', '\ud800', '漢'.repeat(5000), '{}'.repeat(1000)),
)
const anyJson = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileString,
    fc.double(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(hostileString, tie('value'), { maxKeys: 5 }),
  ),
})).value

const messageLike = fc.record(
  {
    role: fc.oneof(fc.constantFrom('user', 'assistant', 'system', 'tool', 'developer'), hostileString),
    content: fc.oneof(
      hostileString,
      anyJson,
      fc.array(fc.record({ type: fc.constantFrom('text', 'image_url', 'tool_result'), text: fc.oneof(hostileString, anyJson) }), { maxLength: 3 }),
    ),
  },
  { requiredKeys: [] },
)

const body = fc.oneof(
  anyJson.map((v) => JSON.stringify(v) ?? 'null'),
  fc
    .record(
      {
        model: fc.oneof(fc.constantFrom('openai/gpt-4o-mini', 'openai/non-json-200', 'nope'), anyJson),
        messages: fc.oneof(fc.array(messageLike, { maxLength: 4 }), anyJson),
        stream: fc.oneof(fc.boolean(), anyJson),
        max_tokens: anyJson,
        input: anyJson,
        tools: anyJson,
      },
      { requiredKeys: [] },
    )
    .map((v) => JSON.stringify(v)),
  fc.nat({ max: 5000 }).map((depth) => `{"model":"openai/gpt-4o-mini","messages":${'['.repeat(depth)}${']'.repeat(depth)}}`),
  hostileString,
)

test('property: hostile bodies on every JSON endpoint are answered below 500, promptly', async () => {
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...PATHS), body, async (path, text) => {
      const started = performance.now()
      const res = await fetch(`${gw.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json' }, body: text })
      const answer = await res.text()
      expect({ path, status: res.status, answer: answer.slice(0, 300) }).toMatchObject({ status: expect.any(Number) })
      if (res.status >= 500) expect(res.status === 502 && answer.includes('upstream_invalid_response')).toBe(true)
      expect(performance.now() - started).toBeLessThan(2000)
    }),
    { numRuns: 300 },
  )
}, 120_000)

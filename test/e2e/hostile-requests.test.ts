/**
 * Hostile requests cannot stall the gateway: while each runs, `/health` keeps answering within 100 ms.
 * Token estimates are bounded (issue #17 defect 1); bodies of millions of values are refused before they are
 * parsed (issue 26 defect 1). The gateway runs as a process of its own, so the test's own work (building and sending
 * megabyte bodies, the fault upstream) does not count against its latency, and its memory can be read.
 */
import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { healthDuringAttempts } from '../helpers/fault-upstream.ts'
import { useFaultGateway } from '../helpers/fault-gateway.ts'
import { writeGatewayYaml } from '../helpers/gateway.ts'
import { peakRssDuring, rssMb } from '../helpers/gateway-process.ts'

const MASTER = 'master-key-hostile-requests-0123456789'
const f = useFaultGateway({
  GATEWAY_MASTER_KEY: MASTER,
  OPENAI_API_KEY: 'sk-fault-upstream-key-0000000000',
  LOGGING_LOG_BODIES: 'true',
  LOGGING_AUDIT_FLUSH_INTERVAL_MS: '20',
})

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${f.gw.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })

describe('token estimates are bounded (defect 1)', () => {
  test('count_tokens of one 128 KB word for a non-Anthropic model answers at once; /health stays responsive', async () => {
    const count = () => post('/v1/messages/count_tokens', { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'y'.repeat(128 * 1024) }] })
    expect(await healthDuringAttempts(f.gw.url, count)).toBeLessThan(100)
    const started = performance.now()
    const res = await count()
    expect(res.status).toBe(200)
    const { input_tokens } = (await res.json()) as { input_tokens: number }
    expect(input_tokens).toBeGreaterThan((128 * 1024) / 8)
    expect(performance.now() - started).toBeLessThan(2000)
  })

  test('a prompt of one 1 MB word, counted because the upstream reports no usage, does not stall the gateway', async () => {
    const call = () => post('/v1/chat/completions', { model: 'openai/long-word', metadata: { bytes: '10' }, messages: [{ role: 'user', content: 'q'.repeat(1024 * 1024) }] })
    expect(await healthDuringAttempts(f.gw.url, call)).toBeLessThan(100)
    expect((await call()).status).toBe(200)
  })

  for (const stream of [false, true]) {
    test(`an upstream answer without usage that is one long word (${stream ? 'streamed, 1 MB' : '512 KB'}) is estimated without stalling`, async () => {
      const bytes = stream ? 1024 * 1024 : 512 * 1024
      const call = () =>
        post('/v1/chat/completions', { model: 'openai/long-word', stream, metadata: { bytes: String(bytes) }, messages: [{ role: 'user', content: 'say y' }] }).then((r) =>
          r.text(),
        )
      expect(await healthDuringAttempts(f.gw.url, call, { afterMs: 500 })).toBeLessThan(100)
      const text = await call()
      expect(text.length).toBeGreaterThan(bytes)
    })
  }
})

describe('deeply nested JSON (defect 6)', () => {
  test('a body nested 100,000 levels deep is a 400 naming the limit, at once', async () => {
    const deep = `{"model":"openai/gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"metadata":${'['.repeat(100_000)}${']'.repeat(100_000)}}`
    const call = () => fetch(`${f.gw.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json' }, body: deep })
    expect(await healthDuringAttempts(f.gw.url, call)).toBeLessThan(100)
    const res = await call()
    expect(res.status).toBe(400)
    const body = (await res.json()) as { error: { code: string; message: string } }
    expect(body.error.code).toBe('json_too_deep')
    expect(body.error.message).toContain('128 levels')
  })
})

describe('a body of millions of empty messages (issue 26 defect 1)', () => {
  const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024
  const emptyMessages = (count: number) => `{"model":"openai/gpt-4o-mini","messages":[${'{},'.repeat(count - 1)}{}]}`
  // Just under the default body limit: eleven million `{}`.
  const hostile = new TextEncoder().encode(emptyMessages(Math.floor((DEFAULT_MAX_BODY_BYTES - 64) / 3)))
  const send = (body: BodyInit) =>
    fetch(`${f.gw.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json' }, body }).then(async (res) => ({
      status: res.status,
      requestId: res.headers.get('x-request-id')!,
      error: ((await res.json()) as { error: { code: string; message: string; param: string | null } }).error,
    }))

  test('32 MiB of `{}` is refused at once with a 400 naming the limit; /health keeps answering within 100 ms', async () => {
    expect(hostile.byteLength).toBeLessThan(DEFAULT_MAX_BODY_BYTES)
    expect(await healthDuringAttempts(f.gw.url, () => send(hostile))).toBeLessThan(100)
    const started = performance.now()
    const answer = await send(hostile)
    expect(answer).toMatchObject({ status: 400, error: { code: 'json_too_many_values' } })
    expect(answer.error.message).toContain('1000000 values')
    expect(performance.now() - started).toBeLessThan(2000)
    const entry = await f.admin.entryFor(answer.requestId)
    expect(entry).toMatchObject({ status_code: 400, error_type: 'invalid_request_error', data: { error_code: 'json_too_many_values', request_body_too_big_to_handle: true } })
  }, 60_000)

  test('four such bodies at once: /health stays responsive and memory grows by less than 100 MiB', async () => {
    const pid = f.gw.proc.pid
    await send(hostile) // the first large body of a process allocates buffers that later ones reuse
    const before = rssMb(pid)
    const four = () => Promise.all(Array.from({ length: 4 }, () => send(hostile)))
    const run = four()
    const peak = await peakRssDuring(pid, run, { killAboveMb: before + 2048 })
    for (const answer of await run) expect(answer.status).toBe(400)
    // Each is refused after its first few megabytes, never decoded nor parsed (it was 5 GiB for one).
    expect(peak - before).toBeLessThan(100)
    expect(await healthDuringAttempts(f.gw.url, four)).toBeLessThan(100)
  }, 60_000)

  test('an array over its bound is refused naming the field and the bound, without checking its elements', async () => {
    const answer = await send(emptyMessages(100_001))
    expect(answer).toMatchObject({ status: 400, error: { code: 'invalid_request', param: 'messages' } })
    expect(answer.error.message).toContain('100000')
  })

  test('100,000 invalid messages: the 400 names the first, at once', async () => {
    expect(await healthDuringAttempts(f.gw.url, () => send(emptyMessages(100_000)))).toBeLessThan(100)
    const answer = await send(emptyMessages(100_000))
    expect(answer).toMatchObject({ status: 400, error: { code: 'invalid_request', param: 'messages.0.role' } })
  })

  test('the largest conversation the bounds allow (100,000 messages) is served; its cost is linear', async () => {
    const message = '{"role":"user","content":"hi"}'
    const body = `{"model":"openai/gpt-4o-mini","messages":[${`${message},`.repeat(99_999)}${message}]}`
    const call = () => fetch(`${f.gw.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json' }, body })
    // About 50-100 ms of work on a loaded 2-core machine (parse, schema check, upstream body): a real conversation
    // this long is a legitimate request. The bound catches anything worse than linear (a quadratic scan cost seconds).
    expect(await healthDuringAttempts(f.gw.url, call, { goodMs: 250 })).toBeLessThan(250)
    expect((await call()).status).toBe(200)
  })
})

describe('every detector and rewriter takes time linear in its text (issue 26 defect 3)', () => {
  // Mask rules only: every detector runs on every text of every request (a block rule stops at its first match).
  const rewriting = useFaultGateway({
    GATEWAY_MASTER_KEY: MASTER,
    OPENAI_API_KEY: 'sk-fault-upstream-key-0000000000',
    GATEWAY_CONFIG: writeGatewayYaml(`
workflows:
  - name: default
    features: { guardrails: true }
    plugins:
      system-prompt: { prompt: "Answer in English.", mode: prepend }
      context-slimmer: { enabled: true }
      guardrails:
        rules:
          - { name: emails, kind: email, action: mask }
          - { name: phones, kind: phone, action: mask }
          - { name: cards, kind: card, action: mask }
          - { name: secrets, kind: secret, action: mask }
          - { name: words, kind: pattern, words: [falcon, "project x"], action: mask }
`),
  })

  const SIZE = 80_000
  const repeatTo = (unit: string, size = SIZE) => unit.repeat(Math.ceil(size / unit.length))
  /** Units from `pieces`, fuzzed (a fixed seed, so a failure names its input again), each repeated to 80,000 characters. */
  const fuzzed = (pieces: string[]) =>
    fc.sample(fc.array(fc.constantFrom(...pieces), { minLength: 1, maxLength: 10 }), { numRuns: 6, seed: 26 }).map((unit) => repeatTo(unit.join('')))
  const asUser = (text: string) => [{ role: 'user', content: text }]
  const asToolResult = (text: string) => [
    { role: 'user', content: 'list the files' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'ls', arguments: '{}' } }] },
    { role: 'tool', tool_call_id: 'c1', content: text },
  ]
  const asSystem = (text: string) => [
    { role: 'system', content: text },
    { role: 'user', content: 'hi' },
  ]

  const CASES: { name: string; messages: (text: string) => unknown[]; texts: string[] }[] = [
    {
      name: 'context slimmer, trailing blanks and runs of blanks in a tool result',
      messages: asToolResult,
      texts: [`${' '.repeat(20_000)}x`, `${' '.repeat(SIZE)}x`, repeatTo('\t x'), ...fuzzed([' ', '\t', 'x', '\n', '\r'])],
    },
    {
      name: 'guardrails e-mail detector',
      messages: asUser,
      texts: ['a'.repeat(SIZE), `${'a'.repeat(SIZE / 2)}@${'b.'.repeat(SIZE / 4)}`, repeatTo('a.'), ...fuzzed(['a', '1', '.', '_', '+', '-', '@', 'co', ' '])],
    },
    {
      name: 'guardrails PEM (secret) detector, 400 KB',
      messages: asUser,
      texts: [
        repeatTo('-----BEGIN PRIVATE KEY-----', 400_000),
        `-----BEGIN RSA PRIVATE KEY-----${repeatTo('-----END RSA ', 400_000)}`,
        ...fuzzed(['-----BEGIN ', '-----END ', 'RSA ', 'PRIVATE KEY', ' BLOCK', '-----', 'sk-', 'a', '\n']),
      ],
    },
    {
      name: 'guardrails phone detector',
      messages: asUser,
      texts: [repeatTo(` ${'1'.repeat(28)}x`), repeatTo(' 12 12 12 12 12 12 12 12 12x'), ...fuzzed(['1', '23', '4567', ' ', '.', '-', '(', ')', '+', 'a'])],
    },
    { name: 'guardrails card detector', messages: asUser, texts: [repeatTo('1 '), repeatTo(`${'4'.repeat(18)}x`), ...fuzzed(['1', '4', ' ', '-', 'x'])] },
    { name: 'guardrails word pattern', messages: asUser, texts: [repeatTo('falco'), repeatTo('project '), ...fuzzed(['falc', 'on', 'project', ' ', 'x', 'F'])] },
    { name: 'system prompt, prepended to a long system message', messages: asSystem, texts: [repeatTo('Be brief. ', 400_000), ...fuzzed(['a', ' ', '\n'])] },
  ]

  const chat = (messages: unknown[]) =>
    fetch(`${rewriting.gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages }),
    })

  test('the workflow runs every one of them (what the texts below go through)', async () => {
    const res = await chat([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'mail bob@example.com or +1 (415) 555-0132, card 4111 1111 1111 1111, project falcon, sk-proj-abcdefghijklmnopqrstuvwxyz' },
      ...asToolResult('a.txt   1   \nb.txt\t\n').slice(1),
    ])
    expect(res.status).toBe(200)
    const sent = rewriting.upstream.requests.at(-1)!.body as { messages: { content: string }[] }
    expect(sent.messages[0]!.content).toBe('Answer in English.\n\nBe brief.')
    expect(sent.messages[1]!.content).toBe('mail [EMAIL] or [PHONE], card [CARD], project [REDACTED], [SECRET]')
    expect(sent.messages.at(-1)!.content).toBe('a.txt 1\nb.txt\n')
  })

  for (const { name, messages, texts } of CASES) {
    test(`${name}: /health answers within 100 ms while the hostile texts are handled`, async () => {
      const statuses: number[] = []
      const all = async () => {
        statuses.length = 0
        for (const text of texts) {
          const res = await chat(messages(text))
          await res.arrayBuffer()
          statuses.push(res.status)
        }
      }
      expect(await healthDuringAttempts(rewriting.gw.url, all)).toBeLessThan(100)
      expect(statuses).toEqual(texts.map(() => 200))
    }, 60_000)
  }
})

// OpenAI providers answer /v1/responses natively (the fault upstream has no such route); the Responses translation
// keeps tool calls in a Map by index and never lists by index (src/protocols/responses/stream.ts).
describe('hostile upstream tool-call indexes (issue 26 defect 12)', () => {
  const toolsBody = { model: 'openai/huge-tool-index', stream: true, tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }] }
  const ingresses: [string, string, Record<string, unknown>, string][] = [
    ['chat', '/v1/chat/completions', { ...toolsBody, messages: [{ role: 'user', content: 'weather?' }] }, '"call_huge"'],
    [
      'Anthropic Messages',
      '/v1/messages',
      { ...toolsBody, max_tokens: 50, messages: [{ role: 'user', content: 'weather?' }], tools: [{ name: 'get_weather', input_schema: { type: 'object' } }] },
      'Paris',
    ],
  ]
  for (const [name, path, body, expected] of ingresses) {
    test(`${name}: a stream whose tool call is numbered 2³²−2 is passed on and audited at once; /health within 100 ms`, async () => {
      const call = () => post(path, body).then(async (res) => ({ status: res.status, requestId: res.headers.get('x-request-id')!, text: await res.text() }))
      expect(await healthDuringAttempts(f.gw.url, call)).toBeLessThan(100)
      const answer = await call()
      expect(answer.status).toBe(200)
      expect(answer.text).toContain(expected)
      const entry = await f.admin.entryFor(answer.requestId)
      expect(JSON.stringify(entry.data.response_body)).toContain('Paris')
    })
  }
})

describe('a wildcard path that is not valid percent-encoding (issue 26 defect 12)', () => {
  const get = (path: string, key?: string) =>
    fetch(`${f.gw.url}${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {} }).then(async (res) => ({
      status: res.status,
      requestId: res.headers.get('x-request-id'),
      error: ((await res.json()) as { error?: { type: string; code: string; message: string } }).error,
    }))

  test('unauthenticated: the 401, as for any other path (it was a 500 before the key was checked)', async () => {
    for (const path of ['/v1/models/%E0%A4%A', '/v1/unknown/%E0%A4%A']) {
      expect(await get(path)).toMatchObject({ status: 401, error: { type: 'authentication_error' } })
    }
  })

  test('authenticated: a 400 invalid_path, audited; valid encodings are decoded exactly once', async () => {
    for (const path of ['/v1/models/%E0%A4%A', '/v1/models/openai/%FF', '/v1/unknown/%E0%A4%A']) {
      const answer = await get(path, MASTER)
      expect({ path, ...answer }).toMatchObject({ path, status: 400, error: { type: 'invalid_request_error', code: 'invalid_path' } })
      expect((await f.admin.entryFor(answer.requestId!)).data).toMatchObject({ error_code: 'invalid_path' })
    }
    expect(await get('/v1/models/openai%2Fgpt-4o-mini', MASTER)).toMatchObject({ status: 200 })
    const twice = await get('/v1/models/openai%252Fgpt-4o-mini', MASTER)
    expect(twice).toMatchObject({ status: 404, error: { code: 'model_not_found' } })
    expect(twice.error!.message).toContain("'openai%2Fgpt-4o-mini'")
  })
})

/**
 * What the audit log captures, end to end: the official `openai` SDK against a real gateway in front of a mock
 * OpenAI upstream, with header and body logging on. Every request to /v1 gets exactly one entry, failed ones
 * included, with error fields that say who raised the error.
 */
import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import OpenAI from 'openai'
import { auditLogEntrySchema } from '../../src/audit/schemas.ts'
import { TRICKY_TEXT } from '../helpers/mock-openai-upstream.ts'
import { useGatewaySuite } from '../helpers/gateway-suite.ts'

const MASTER = 'master-key-for-audit-tests-0123456789'

const t = useGatewaySuite({
  master: MASTER,
  env: {
    OPENAI_API_KEY: 'sk-upstream-secret-0001',
    VIRTUAL_MODELS: JSON.stringify([{ source: 'fast', target: 'openai/gpt-4o-mini' }]),
    LOGGING_LOG_BODIES: 'true',
    LOGGING_LOG_HEADERS: 'true',
    LOGGING_AUDIT_FLUSH_INTERVAL_MS: '5',
  },
})

const messages = [{ role: 'user' as const, content: 'hi' }]
const rid = () => crypto.randomUUID()

/** Runs a call that is expected to fail and returns the SDK's error status. */
async function failing(run: () => Promise<unknown>): Promise<number | undefined> {
  try {
    await run()
  } catch (error) {
    return (error as { status?: number }).status
  }
  throw new Error('expected the call to fail')
}

describe('successful requests', () => {
  test('a plain answer: routing, identity, bodies, headers, attempts, features and usage', async () => {
    const requestId = rid()
    await t.openai.chat.completions.create(
      { model: 'fast', messages, temperature: 0.3, max_tokens: 50 },
      { headers: { 'x-request-id': requestId, 'x-session-id': 'sess-capture-1' } },
    )
    const entry = await t.audit.entryFor(requestId)
    expect(auditLogEntrySchema.strict().parse(entry)).toBeTruthy()
    expect(entry).toMatchObject({
      request_id: requestId,
      requested_model: 'fast',
      resolved_model: 'openai/gpt-4o-mini',
      provider: 'openai',
      provider_name: 'openai',
      method: 'POST',
      path: '/v1/chat/completions',
      status_code: 200,
      stream: false,
      error_type: '',
      session_id: 'sess-capture-1',
      user_path: '/',
      principal_id: 'master',
      auth_method: 'master_key',
      client_ip: '127.0.0.1',
      alias_used: true,
    })
    expect(entry.id).not.toBe(requestId)
    expect(entry.id).toMatch(/^[0-9a-f-]{36}$/)
    expect(entry.workflow_version_id).toMatch(/^wfv_/)
    expect(entry.data).toMatchObject({
      temperature: 0.3,
      max_tokens: 50,
      request_body: { model: 'fast', messages, temperature: 0.3, max_tokens: 50 },
      response_body: { object: 'chat.completion', choices: [{ message: { content: TRICKY_TEXT } }] },
      workflow_features: { audit: true, usage: true },
      attempts: [{ seq: 1, kind: 'primary', model: 'gpt-4o-mini', provider_name: 'openai', success: true, status_code: 200 }],
    })
    expect(entry.data.request_headers?.authorization).toBe('[REDACTED]')
    expect(entry.data.response_headers?.['content-type']).toContain('application/json')
    expect(entry.usage).toMatchObject({ input_tokens: 12, output_tokens: 5, total_tokens: 17, cached_input_tokens: 2, uncached_input_tokens: 10, entries: 1 })
    expect(entry.duration_ns).toBeGreaterThan(0)
  })

  test('a streamed answer is stored as the equivalent chat.completion, usage included', async () => {
    const requestId = rid()
    const stream = await t.openai.chat.completions.create(
      { model: 'openai/gpt-4o-mini', messages, stream: true, stream_options: { include_usage: true } },
      { headers: { 'x-request-id': requestId } },
    )
    let text = ''
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? ''
    expect(text).toBe(TRICKY_TEXT)
    const entry = await t.audit.entryFor(requestId)
    expect(entry.stream).toBe(true)
    expect(entry.data.response_body).toMatchObject({
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: TRICKY_TEXT }, finish_reason: 'stop' }],
    })
    expect(entry.data.response_headers?.['content-type']).toContain('text/event-stream')
    expect(entry.usage).toMatchObject({ input_tokens: 9, output_tokens: Array.from(TRICKY_TEXT).length })
  })

  test('GET /v1/models gets an entry too', async () => {
    const requestId = rid()
    await t.openai.models.list({ headers: { 'x-request-id': requestId } })
    const entry = await t.audit.entryFor(requestId)
    expect(entry).toMatchObject({ method: 'GET', path: '/v1/models', status_code: 200, requested_model: '' })
  })
})

describe('failed requests: exactly one entry each, and who raised the error', () => {
  test('401: a rejected gateway key (error_provider empty, the precise reason kept)', async () => {
    const requestId = rid()
    const bad = new OpenAI({ apiKey: 'sk-gw-not-a-real-key', baseURL: t.gw.baseURL, maxRetries: 0 })
    expect(await failing(() => bad.chat.completions.create({ model: 'fast', messages }, { headers: { 'x-request-id': requestId } }))).toBe(401)
    const entry = await t.audit.entryFor(requestId)
    expect(entry).toMatchObject({ status_code: 401, error_type: 'authentication_error', auth_method: 'none', provider: '' })
    expect(entry.data).toMatchObject({ error_code: 'invalid_api_key', error_provider: '' })
    expect(entry.data.error_message).toContain('unknown API key')
    expect(entry.data.api_key_hash).toMatch(/^[0-9a-f]{16}$/)
    expect(JSON.stringify(entry)).not.toContain('sk-gw-not-a-real-key')
  })

  test('400: validation by the gateway', async () => {
    const requestId = rid()
    expect(await failing(() => t.openai.chat.completions.create({ model: 'fast', messages: 'hi' as never }, { headers: { 'x-request-id': requestId } }))).toBe(400)
    const entry = await t.audit.entryFor(requestId)
    expect(entry).toMatchObject({ status_code: 400, error_type: 'invalid_request_error', data: { error_code: 'invalid_request', error_provider: '' } })
    expect(entry.data.error_message).toContain('messages')
    expect(entry.data.attempts).toBeUndefined()
  })

  test('400 for a max_tokens past the safe integers: the entry still matches its schema (found by schemathesis)', async () => {
    const requestId = rid()
    const huge = 66544901624795920
    expect(await failing(() => t.openai.chat.completions.create({ model: 'fast', messages, max_tokens: huge }, { headers: { 'x-request-id': requestId } }))).toBe(400)
    const entry = await t.audit.entryFor(requestId)
    expect(entry.data.max_tokens).toBeUndefined()
    expect(entry.data.request_body).toMatchObject({ max_tokens: huge })
    expect(auditLogEntrySchema.safeParse(entry).success).toBe(true)
  })

  test('404: an unknown model', async () => {
    const requestId = rid()
    expect(await failing(() => t.openai.chat.completions.create({ model: 'no-such-model', messages }, { headers: { 'x-request-id': requestId } }))).toBe(404)
    const entry = await t.audit.entryFor(requestId)
    expect(entry).toMatchObject({
      status_code: 404,
      error_type: 'not_found_error',
      requested_model: 'no-such-model',
      resolved_model: '',
      data: { error_code: 'model_not_found', error_provider: '' },
    })
  })

  test('429 from the upstream: error_provider names it; the attempt keeps the raw upstream body', async () => {
    const requestId = rid()
    expect(await failing(() => t.openai.chat.completions.create({ model: 'openai/error-429', messages }, { headers: { 'x-request-id': requestId } }))).toBe(429)
    const entry = await t.audit.entryFor(requestId)
    expect(entry).toMatchObject({ status_code: 429, error_type: 'rate_limit_error', provider: 'openai', data: { error_code: 'rate_limit_exceeded', error_provider: 'openai' } })
    expect(entry.data.attempts).toMatchObject([{ success: false, status_code: 429, response_body: { error: { code: 'rate_limit_exceeded' } } }])
    expect(entry.data.attempts![0]!.response_headers?.['retry-after']).toBe('1')
  })

  test('500 from the upstream', async () => {
    const requestId = rid()
    expect(await failing(() => t.openai.chat.completions.create({ model: 'openai/error-500', messages }, { headers: { 'x-request-id': requestId } }))).toBe(500)
    const entry = await t.audit.entryFor(requestId)
    expect(entry).toMatchObject({ status_code: 500, error_type: 'provider_error', data: { error_provider: 'openai' } })
  })

  test('an unknown /v1 route', async () => {
    const requestId = rid()
    const res = await fetch(`${t.gw.baseURL}/no-such-api`, { method: 'POST', headers: { authorization: `Bearer ${MASTER}`, 'x-request-id': requestId } })
    expect(res.status).toBe(404)
    const entry = await t.audit.entryFor(requestId)
    expect(entry).toMatchObject({ status_code: 404, path: '/v1/no-such-api', error_type: 'not_found_error', data: { error_code: 'route_not_found', error_provider: '' } })
  })
})

describe('redaction and limits', () => {
  test('secret header values never reach the stored rows', async () => {
    const requestId = rid()
    const secrets = { 'x-upstream-secret': 'hush-4b1d-value', 'proxy-authorization': 'Basic cHJveHk6c2VjcmV0', cookie: 'session=cookie-9f8e' }
    await t.openai.chat.completions.create({ model: 'fast', messages }, { headers: { 'x-request-id': requestId, ...secrets } })
    const entry = await t.audit.entryFor(requestId)
    expect(entry.data.request_headers).toMatchObject({ 'x-upstream-secret': '[REDACTED]', 'proxy-authorization': '[REDACTED]', cookie: '[REDACTED]' })
    // What is physically in the database file, read past the stores.
    const db = new Database(t.gw.gateway.config.database.path, { readonly: true })
    const stored = JSON.stringify([db.query('SELECT * FROM audit_log').all(), db.query('SELECT * FROM audit_log_payloads').all()])
    db.close()
    for (const value of [MASTER, 'sk-upstream-secret-0001', ...Object.values(secrets)]) expect(stored).not.toContain(value)
    expect(stored).toContain(requestId) // the rows are really there
  })

  test('a 1.5 MB request body is not stored; its flag is set; the small answer is stored', async () => {
    const requestId = rid()
    const big = 'x'.repeat(1.5 * 1024 * 1024)
    await t.openai.chat.completions.create(
      {
        model: 'fast',
        messages: [
          { role: 'user', content: big },
          { role: 'user', content: 'echo:small' },
        ],
      },
      { headers: { 'x-request-id': requestId } },
    )
    const entry = await t.audit.entryFor(requestId)
    expect(entry.data.request_body_too_big_to_handle).toBe(true)
    expect(entry.data.request_body).toBeUndefined()
    expect(entry.data.response_body_too_big_to_handle).toBeUndefined()
    expect(entry.data.response_body).toMatchObject({ choices: [{ message: { content: 'small' } }] })
  })

  // A streamed answer over 1 MB is covered in plugins/audit-sink/plugin.test.ts: the mock streams one character
  // per frame, and a million frames would take the test's whole time budget.
  test('a 1.5 MB answer is not stored; its flag is set', async () => {
    const requestId = rid()
    const answer = await t.openai.chat.completions.create(
      { model: 'fast', messages: [{ role: 'user', content: `echo:${'y'.repeat(1.5 * 1024 * 1024)}` }] },
      { headers: { 'x-request-id': requestId } },
    )
    expect(answer.choices[0]!.message.content).toHaveLength(1.5 * 1024 * 1024)
    const entry = await t.audit.entryFor(requestId)
    expect(entry.data).toMatchObject({ request_body_too_big_to_handle: true, response_body_too_big_to_handle: true })
    expect(entry.data.response_body).toBeUndefined()
  })

  test('a body just under 1 MB is stored whole', async () => {
    const requestId = rid()
    const content = 'z'.repeat(1024 * 1024 - 200)
    await t.openai.chat.completions.create(
      {
        model: 'fast',
        messages: [
          { role: 'user', content },
          { role: 'user', content: 'echo:ok' },
        ],
      },
      { headers: { 'x-request-id': requestId } },
    )
    const entry = await t.audit.entryFor(requestId)
    expect(entry.data.request_body_too_big_to_handle).toBeUndefined()
    expect((entry.data.request_body as { messages: { content: string }[] }).messages[0]!.content).toHaveLength(content.length)
  })
})

describe('the audit feature and its neighbours', () => {
  test('a workflow with audit off captures nothing; other requests still get their entry', async () => {
    const created = await fetch(`${t.gw.url}/admin/workflows`, {
      method: 'POST',
      headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'quiet', scope: { model: 'openai/gpt-4o' }, features: { audit: false } }),
    })
    expect(created.status).toBe(201)
    const quiet = rid()
    await t.openai.chat.completions.create({ model: 'openai/gpt-4o', messages }, { headers: { 'x-request-id': quiet } })
    const marker = rid()
    await t.openai.chat.completions.create({ model: 'fast', messages }, { headers: { 'x-request-id': marker } })
    await t.audit.entryFor(marker) // written after the quiet one would have been
    expect((await t.audit.list({ search: quiet })).total).toBe(0)
  })

  test('authentication failures over the flood limit are counted, not stored', async () => {
    const before = (await t.audit.writerStats()).suppressed
    const ids = Array.from({ length: 30 }, rid)
    for (const id of ids) await fetch(`${t.gw.baseURL}/models`, { headers: { authorization: 'Bearer sk-gw-flood-key', 'x-request-id': id } })
    const marker = rid()
    await t.openai.models.list({ headers: { 'x-request-id': marker } })
    await t.audit.entryFor(marker)
    let stored = 0
    for (const id of ids) stored += (await t.audit.list({ search: id })).total
    const suppressed = (await t.audit.writerStats()).suppressed - before
    expect(suppressed).toBeGreaterThan(0)
    expect(stored + suppressed).toBe(30)
  })

  test('security lifecycle events become entries with data.event_type', async () => {
    const res = await fetch(`${t.gw.url}/admin/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'audited key' }),
    })
    expect(res.status).toBe(201)
    const key = (await res.json()) as { id: string; key: string }
    const page = await t.audit.eventually(
      () => t.audit.list({ path: '/admin/keys' }),
      (p) => p.total > 0,
    )
    const event = page.entries.find((e) => e.data.event_type === 'key.created' && e.data.event_subject_id === key.id)
    expect(event).toMatchObject({ method: 'POST', status_code: 201, principal_id: 'master', auth_method: 'master_key' })
    expect(JSON.stringify(page)).not.toContain(key.key)
  })

  test('every /v1 request so far has exactly one entry', async () => {
    const stats = await t.audit.eventually(
      () => t.audit.writerStats(),
      (s) => s.queue_depth === 0,
    )
    const requests = await t.audit.list({ path: '/v1/chat/completions', limit: '100' })
    const ids = requests.entries.map((e) => e.id)
    expect(new Set(ids).size).toBe(ids.length)
    const requestIds = requests.entries.map((e) => e.request_id)
    expect(new Set(requestIds).size).toBe(requestIds.length)
    expect(stats.written).toBe(stats.recorded)
    expect(stats.failed + stats.spilled).toBe(0)
  })
})

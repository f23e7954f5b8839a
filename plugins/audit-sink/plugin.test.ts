import { describe, expect, test } from 'bun:test'
import type { AuditLogEntry } from '../../src/audit/entry.ts'
import { GatewayError, gatewayErrors } from '../../src/errors/gateway-error.ts'
import { BODY_CAPTURE_LIMIT_BYTES } from '../../src/audit/capture-limit.ts'
import type { RequestContext } from '../../src/pipeline/context.ts'
import type { BoundHooks } from '../../src/pipeline/build.ts'
import type { Outcome } from '../../src/pipeline/types.ts'
import { applyCapture, makeContext, makeDeps, pluginHooks } from '../../test/helpers/plugin-harness.ts'
import { auditSink } from './plugin.ts'

async function setup(env: Record<string, string> = {}) {
  const entries: AuditLogEntry[] = []
  let suppressed = 0
  const deps = { ...(await makeDeps(env)), audit: { record: (e: AuditLogEntry) => entries.push(e), recordSuppressed: () => suppressed++ } }
  const hooks = { ...(pluginHooks(auditSink, {}, deps) as Required<Pick<BoundHooks, 'onComplete'>>), prepare: (ctx: RequestContext) => applyCapture(ctx, [auditSink], deps) }
  return { hooks, entries, suppressed: () => suppressed }
}

const outcome = (over: Partial<Outcome> = {}): Outcome => ({
  status: 200,
  clientAborted: false,
  bytesOut: 20,
  responseHeaders: new Headers({ 'content-type': 'application/json' }),
  durationNs: 1_500_000,
  ...over,
})

function complete(hooks: Awaited<ReturnType<typeof setup>>['hooks'], ctx: RequestContext, out: Outcome) {
  hooks.prepare(ctx)
  void hooks.onComplete(ctx, out)
}

const chat = { model: 'fast', temperature: 0.2, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }

describe('one entry per request', () => {
  test('a successful request: ids, routing, identity, features', async () => {
    const { hooks, entries } = await setup()
    const ctx = makeContext({ body: chat, headers: { 'user-agent': 'OpenAI/JS 7', 'x-request-id': 'req-client-1', 'x-session-id': 'sess-9' } })
    ctx.target = { providerName: 'azure-east', providerType: 'azure', model: 'gpt-4o', selector: 'azure-east/gpt-4o' }
    ctx.aliasUsed = true
    ctx.userPath = '/acme/team-a'
    ctx.principal = { method: 'managed_key', id: 'key_1', keyId: 'key_1', keyHash: 'ab'.repeat(32) }
    ctx.workflowVersionId = 'wfv_7'
    complete(hooks, ctx, outcome())
    expect(entries).toHaveLength(1)
    expect(entries[0]).toMatchObject({
      id: ctx.id,
      timestamp: ctx.startedAt.toISOString(),
      duration_ns: 1_500_000,
      request_id: 'req-client-1',
      requested_model: 'fast',
      resolved_model: 'azure-east/gpt-4o',
      provider: 'azure',
      provider_name: 'azure-east',
      method: 'POST',
      path: '/v1/chat/completions',
      status_code: 200,
      stream: false,
      error_type: '',
      session_id: 'sess-9',
      user_path: '/acme/team-a',
      principal_id: 'key_1',
      auth_key_id: 'key_1',
      auth_method: 'managed_key',
      client_ip: '127.0.0.1',
      alias_used: true,
      workflow_version_id: 'wfv_7',
      data: { api_key_hash: 'abababababababab', user_agent: 'OpenAI/JS 7', temperature: 0.2, max_tokens: 64, workflow_features: ctx.features },
    })
    expect(entries[0]!.id).not.toBe(entries[0]!.request_id)
  })

  test('an entry skipped by the flood limiter is counted instead', async () => {
    const { hooks, entries, suppressed } = await setup()
    const ctx = makeContext({ body: chat })
    ctx.auditSuppressed = true
    complete(hooks, ctx, outcome({ status: 401 }))
    expect(entries).toHaveLength(0)
    expect(suppressed()).toBe(1)
  })
})

describe('who raised the error', () => {
  test('the gateway (authentication): the precise reason, an empty error_provider, the presented key hash', async () => {
    const { hooks, entries } = await setup()
    const ctx = makeContext({ body: chat, headers: { authorization: 'Bearer sk-gw-wrong' } })
    ctx.authFailureReason = 'unknown API key'
    ctx.error = gatewayErrors.unauthenticated()
    complete(hooks, ctx, outcome({ status: 401, error: ctx.error }))
    expect(entries[0]).toMatchObject({ status_code: 401, error_type: 'authentication_error', auth_method: 'none', principal_id: '' })
    expect(entries[0]!.data).toMatchObject({ error_code: 'invalid_api_key', error_provider: '' })
    expect(entries[0]!.data.error_message).toContain('unknown API key')
    expect(entries[0]!.data.api_key_hash).toMatch(/^[0-9a-f]{16}$/)
  })

  test('an upstream: error_provider names it', async () => {
    const { hooks, entries } = await setup()
    const ctx = makeContext({ body: chat })
    const error = new GatewayError({ status: 429, type: 'rate_limit_error', message: 'Rate limit reached', code: 'rate_limit_exceeded', provider: 'openai' })
    complete(hooks, ctx, outcome({ status: 429, error }))
    expect(entries[0]).toMatchObject({ error_type: 'rate_limit_error', data: { error_code: 'rate_limit_exceeded', error_provider: 'openai', error_message: 'Rate limit reached' } })
  })

  test('a client that went away mid-stream is noted without an error type', async () => {
    const { hooks, entries } = await setup()
    const ctx = makeContext({ body: { ...chat, stream: true } })
    complete(hooks, ctx, outcome({ clientAborted: true }))
    expect(entries[0]).toMatchObject({ status_code: 200, stream: true, error_type: '', data: { error_code: 'client_closed_request' } })
  })
})

describe('capture switches', () => {
  test('off by default: no headers, no bodies, no folded response asked for', async () => {
    const { hooks, entries } = await setup()
    const ctx = makeContext({ body: chat, headers: { authorization: 'Bearer sk-secret' } })
    hooks.prepare(ctx)
    expect([ctx.capture.bodies, ctx.capture.headers, ctx.capture.responseBody]).toEqual([false, false, false])
    void hooks.onComplete(ctx, outcome({ responseBody: { choices: [] } }))
    expect(entries[0]!.data).not.toHaveProperty('request_headers')
    expect(entries[0]!.data).not.toHaveProperty('request_body')
    expect(entries[0]!.data).not.toHaveProperty('response_body')
  })

  test('LOGGING_LOG_HEADERS: request and response headers with every credential redacted', async () => {
    const { hooks, entries } = await setup({ LOGGING_LOG_HEADERS: 'true' })
    const ctx = makeContext({
      body: chat,
      headers: { authorization: 'Bearer sk-live-123', 'x-api-key': 'sk-other-456', 'x-custom-token': 'tok-789', cookie: 'sid=abc', accept: 'application/json' },
    })
    complete(hooks, ctx, outcome({ responseHeaders: new Headers({ 'set-cookie': 'sid=def', 'x-ratelimit-remaining-requests': '9' }) }))
    const { request_headers, response_headers } = entries[0]!.data
    expect(request_headers).toMatchObject({
      authorization: '[REDACTED]',
      'x-api-key': '[REDACTED]',
      'x-custom-token': '[REDACTED]',
      cookie: '[REDACTED]',
      accept: 'application/json',
    })
    expect(response_headers).toEqual({ 'set-cookie': '[REDACTED]', 'x-ratelimit-remaining-requests': '9' })
    for (const secret of ['sk-live-123', 'sk-other-456', 'tok-789', 'sid=abc', 'sid=def']) expect(JSON.stringify(entries[0])).not.toContain(secret)
  })

  test('LOGGING_LOG_BODIES: the original request body and the response body', async () => {
    const { hooks, entries } = await setup({ LOGGING_LOG_BODIES: 'true' })
    const ctx = makeContext({ body: chat })
    ctx.originalBodyText = JSON.stringify(chat)
    hooks.prepare(ctx)
    expect(ctx.capture.responseBody).toBe(true)
    ctx.body = { ...chat, messages: [] } // a rewriter changed what went upstream
    void hooks.onComplete(ctx, outcome({ responseBody: { object: 'chat.completion', choices: [] } }))
    expect(entries[0]!.data.request_body).toEqual(chat)
    expect(entries[0]!.data.response_body).toEqual({ object: 'chat.completion', choices: [] })
  })

  test('bodies over 1 MB are not stored; the flags say so', async () => {
    const { hooks, entries } = await setup({ LOGGING_LOG_BODIES: 'true' })
    const ctx = makeContext({ body: chat })
    ctx.requestBodyTooBig = true
    complete(hooks, ctx, outcome({ bytesOut: BODY_CAPTURE_LIMIT_BYTES + 1, responseText: 'x'.repeat(BODY_CAPTURE_LIMIT_BYTES + 1) }))
    expect(entries[0]!.data).toMatchObject({ request_body_too_big_to_handle: true, response_body_too_big_to_handle: true })
    expect(entries[0]!.data).not.toHaveProperty('request_body')
    expect(entries[0]!.data).not.toHaveProperty('response_body')
  })

  test('a streamed answer whose frames pass 1 MB but whose folded body does not is kept', async () => {
    const { hooks, entries } = await setup({ LOGGING_LOG_BODIES: 'true' })
    const ctx = makeContext({ body: { ...chat, stream: true } })
    complete(hooks, ctx, outcome({ bytesOut: BODY_CAPTURE_LIMIT_BYTES + 500, responseBody: { object: 'chat.completion', choices: [{ message: { content: 'x'.repeat(1000) } }] } }))
    expect(entries[0]!.data.response_body_too_big_to_handle).toBeUndefined()
    expect(entries[0]!.data.response_body).toMatchObject({ object: 'chat.completion' })
  })

  test('a streamed answer whose folded body passes 1 MB is not stored', async () => {
    const { hooks, entries } = await setup({ LOGGING_LOG_BODIES: 'true' })
    const ctx = makeContext({ body: { ...chat, stream: true } })
    complete(
      hooks,
      ctx,
      outcome({ bytesOut: 3 * BODY_CAPTURE_LIMIT_BYTES, responseBody: { object: 'chat.completion', choices: [{ message: { content: 'x'.repeat(BODY_CAPTURE_LIMIT_BYTES) } }] } }),
    )
    expect(entries[0]!.data.response_body_too_big_to_handle).toBe(true)
    expect(entries[0]!.data).not.toHaveProperty('response_body')
  })

  test('a body that is not JSON is kept as text', async () => {
    const { hooks, entries } = await setup({ LOGGING_LOG_BODIES: 'true' })
    const ctx = makeContext({ body: chat })
    ctx.originalBody = undefined
    ctx.originalBodyText = '{"model": '
    complete(hooks, ctx, outcome({ status: 400 }))
    expect(entries[0]!.data.request_body).toBe('{"model": ')
  })
})

describe('usage summary', () => {
  const usage = { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120, cached_tokens: 40, cache_write_tokens: 5, reasoning_tokens: 0, estimated: false }

  test('computed from the upstream usage and the rewriters’ savings', async () => {
    const { hooks, entries } = await setup()
    const ctx = makeContext({ body: chat })
    ctx.features = { ...ctx.features, usage: true }
    ctx.revisions.push(
      { seq: 1, rewriter: 'context-slimmer', bytes_before: 900, bytes_after: 400, tokens_saved: 70 },
      { seq: 2, rewriter: 'system-prompt', bytes_before: 400, bytes_after: 450, tokens_saved: 3 },
    )
    complete(hooks, ctx, outcome({ usage }))
    expect(entries[0]!.usage).toEqual({
      input_tokens: 100,
      output_tokens: 20,
      total_tokens: 120,
      cached_input_tokens: 40,
      uncached_input_tokens: 60,
      cache_write_input_tokens: 5,
      cached_input_ratio: 0.4,
      estimated_cached_characters: 160,
      rewrite_tokens_saved: 73,
      rewrite_cost_saved: 0,
      entries: 1,
    })
  })

  test('absent without upstream usage or with the usage feature off', async () => {
    const { hooks, entries } = await setup()
    const ctx = makeContext({ body: chat })
    ctx.features = { ...ctx.features, usage: true }
    complete(hooks, ctx, outcome())
    const off = makeContext({ body: chat })
    hooks.prepare(off)
    off.features = { ...off.features, usage: false }
    void hooks.onComplete(off, outcome({ usage }))
    expect(entries.map((e) => e.usage)).toEqual([undefined, undefined])
  })
})

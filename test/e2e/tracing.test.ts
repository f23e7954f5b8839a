/**
 * OpenTelemetry traces, received by a real OTLP/HTTP receiver (a server decoding the JSON the exporter POSTs):
 * a streamed request continuing the client's `traceparent`, a failed-over request and a cached one; span
 * parent/child links, GenAI and gateway attributes, `traceparent` sent upstream, the trace id in the audit
 * entry, and no prompt or completion text in any span.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startGateway, writeGatewayYaml, type RunningGateway } from '../helpers/gateway.ts'
import { startMockOpenAI, type MockUpstream } from '../helpers/mock-openai-upstream.ts'
import { tracingSettingsFromEnv } from '../../src/observability/tracing-config.ts'
import { auditAdmin } from '../helpers/audit-admin.ts'

const MASTER = 'master-key-for-tracing-tests-0123456789'
const PROMPT = 'echo:secret prompt text 9c1e'

interface OtlpAttribute {
  key: string
  value: { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number; arrayValue?: { values: OtlpAttribute['value'][] } }
}
interface OtlpSpan {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  kind: number
  attributes: OtlpAttribute[]
  status?: { code?: number; message?: string }
}

/** A minimal OTLP/HTTP trace receiver: records every span and every raw payload. */
function startOtlpReceiver() {
  const spans: OtlpSpan[] = []
  const payloads: string[] = []
  const resources: OtlpAttribute[][] = []
  const server = Bun.serve({
    port: 0,
    async fetch(req) {
      const url = new URL(req.url)
      if (req.method !== 'POST' || url.pathname !== '/v1/traces') return new Response('not found', { status: 404 })
      if (!(req.headers.get('content-type') ?? '').startsWith('application/json')) return new Response('expected OTLP JSON', { status: 415 })
      const text = await req.text()
      payloads.push(text)
      const body = JSON.parse(text) as { resourceSpans: { resource: { attributes: OtlpAttribute[] }; scopeSpans: { spans: OtlpSpan[] }[] }[] }
      for (const rs of body.resourceSpans) {
        resources.push(rs.resource.attributes)
        for (const ss of rs.scopeSpans) spans.push(...ss.spans)
      }
      return Response.json({ partialSuccess: {} })
    },
  })
  return { url: `http://127.0.0.1:${server.port}`, spans, payloads, resources, stop: () => server.stop(true) }
}

function attr(span: OtlpSpan | undefined, key: string): unknown {
  const v = span?.attributes.find((a) => a.key === key)?.value
  if (!v) return undefined
  if (v.arrayValue) return v.arrayValue.values.map((x) => x.stringValue ?? x.intValue)
  if (v.intValue !== undefined) return Number(v.intValue)
  return v.stringValue ?? v.boolValue ?? v.doubleValue
}

const SERVER = 2
const CLIENT = 3
const STATUS_ERROR = 2

let one: MockUpstream
let two: MockUpstream
let receiver: ReturnType<typeof startOtlpReceiver>
let gw: RunningGateway

const chat = (model: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  fetch(`${gw.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: PROMPT }], ...extra }),
  })

async function flushedSpans(): Promise<OtlpSpan[]> {
  await gw.gateway.tracing!.flush()
  return receiver.spans
}

beforeAll(async () => {
  one = startMockOpenAI()
  two = startMockOpenAI()
  receiver = startOtlpReceiver()
  const file = writeGatewayYaml(`
providers:
  one: { type: openai, api_key: sk-one-tracing-0123456789, base_url: "${one.url}" }
  two: { type: anthropic, api_key: sk-two-tracing-0123456789, base_url: "${two.url}" }
workflows:
  - name: default
    features: { failover: true, cache: true, usage: true }
    plugins:
      failover:
        max_retries: 1
        initial_backoff_ms: 5
        targets:
          one/error-503: [one/gpt-4o]
`)
  const tracing = tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'gateway-under-test', OTEL_TRACES_SAMPLER: 'parentbased_always_on' })
  gw = await startGateway({ GATEWAY_CONFIG: file, GATEWAY_MASTER_KEY: MASTER, LOGGING_AUDIT_FLUSH_INTERVAL_MS: '20' }, { tracing })
})
afterAll(async () => {
  await gw.stop()
  one.stop()
  two.stop()
  receiver.stop()
})

describe('traces', () => {
  test('a streamed request continues the client trace; its upstream attempt is a child span and carries traceparent', async () => {
    const clientTrace = '4bf92f3577b34da6a3ce929d0e0e4736'
    const clientSpan = '00f067aa0ba902b7'
    const requestId = crypto.randomUUID()
    const res = await chat(
      'one/gpt-4o-mini',
      { stream: true, stream_options: { include_usage: true } },
      { traceparent: `00-${clientTrace}-${clientSpan}-01`, 'x-request-id': requestId },
    )
    expect(res.status).toBe(200)
    expect(await res.text()).toContain('data: [DONE]')
    const spans = (await flushedSpans()).filter((s) => s.traceId === clientTrace)
    const request = spans.find((s) => s.kind === SERVER)!
    expect(request).toBeDefined()
    expect(request.parentSpanId).toBe(clientSpan)
    expect(request.name).toBe('POST /v1/chat/completions')
    expect(attr(request, 'gen_ai.operation.name')).toBe('chat')
    expect(attr(request, 'gen_ai.request.model')).toBe('one/gpt-4o-mini')
    expect(attr(request, 'gen_ai.response.model')).toBe('gpt-4o-mini')
    expect(attr(request, 'gen_ai.provider.name')).toBe('openai')
    expect(attr(request, 'gen_ai.usage.input_tokens')).toBeGreaterThan(0)
    expect(attr(request, 'gen_ai.usage.output_tokens')).toBeGreaterThan(0)
    expect(attr(request, 'gateway.request_id')).toBe(requestId)
    expect(attr(request, 'gateway.key_id') ?? attr(request, 'gateway.principal')).toBe('master')
    expect(attr(request, 'gateway.workflow_version')).toBeTruthy()
    expect(attr(request, 'gateway.cache_hit')).toBe(false)
    expect(attr(request, 'gateway.stream')).toBe(true)
    expect(attr(request, 'http.response.status_code')).toBe(200)

    const attempt = spans.find((s) => s.kind === CLIENT)!
    expect(attempt.parentSpanId).toBe(request.spanId)
    expect(attempt.name).toBe('chat gpt-4o-mini')
    expect(attr(attempt, 'gen_ai.request.model')).toBe('gpt-4o-mini')
    expect(attr(attempt, 'gen_ai.provider.name')).toBe('openai')
    expect(attr(attempt, 'gateway.attempt.kind')).toBe('primary')
    expect(attr(attempt, 'http.response.status_code')).toBe(200)
    const upstream = one.requests.find((r) => r.body?.stream === true)!
    expect(upstream.headers.traceparent).toBe(`00-${clientTrace}-${attempt.spanId}-01`)

    // The audit entry records the trace id.
    const entry = await auditAdmin(gw.url, MASTER).entryFor(requestId)
    expect(entry.data.trace_id).toBe(clientTrace)
  })

  test('a failed-over request: one child span per attempt, errors marked, the failover target named', async () => {
    const res = await chat('one/error-503', {}, { 'x-request-id': 'trace-failover-1' })
    expect(res.status).toBe(200)
    await res.text()
    const spans = await flushedSpans()
    const request = spans.find((s) => s.kind === SERVER && attr(s, 'gateway.request_id') === 'trace-failover-1')!
    expect(request.parentSpanId ?? '').toBe('')
    expect(attr(request, 'gateway.failover_target')).toBe('one/gpt-4o')
    expect(attr(request, 'gateway.attempts')).toBe(3)
    expect(attr(request, 'gen_ai.response.model')).toBe('gpt-4o')
    const attempts = spans.filter((s) => s.parentSpanId === request.spanId)
    expect(attempts.map((s) => attr(s, 'gateway.attempt.kind'))).toEqual(['primary', 'retry', 'failover'])
    expect(attempts.every((s) => s.traceId === request.traceId && s.kind === CLIENT)).toBe(true)
    expect(attempts[0]!.status?.code).toBe(STATUS_ERROR)
    expect(attr(attempts[0], 'http.response.status_code')).toBe(503)
    expect(attr(attempts[0], 'error.type')).toBeTruthy()
    expect(attempts[2]!.status?.code ?? 0).not.toBe(STATUS_ERROR)
    expect(attr(attempts[2], 'gen_ai.request.model')).toBe('gpt-4o')
  })

  test('a cached request: a request span with cache_hit and no upstream span; finish reasons from the answer', async () => {
    for (const id of ['trace-cache-miss', 'trace-cache-hit']) {
      const res = await chat('one/gpt-4o-mini', { temperature: 0.3 }, { 'x-request-id': id })
      expect(res.status).toBe(200)
      await res.text()
    }
    const spans = await flushedSpans()
    const miss = spans.find((s) => s.kind === SERVER && attr(s, 'gateway.request_id') === 'trace-cache-miss')!
    const hit = spans.find((s) => s.kind === SERVER && attr(s, 'gateway.request_id') === 'trace-cache-hit')!
    expect(attr(miss, 'gateway.cache_hit')).toBe(false)
    expect(attr(hit, 'gateway.cache_hit')).toBe(true)
    expect(attr(hit, 'gen_ai.response.finish_reasons')).toEqual(['stop'])
    expect(spans.filter((s) => s.parentSpanId === hit.spanId)).toHaveLength(0)
    expect(spans.filter((s) => s.parentSpanId === miss.spanId)).toHaveLength(1)
  })

  test('a client trace that is not sampled is continued unsampled: no spans, the upstream gets flags 00', async () => {
    const clientTrace = 'a3ce929d0e0e47364bf92f3577b34da6'
    const res = await chat('one/gpt-4o', {}, { traceparent: `00-${clientTrace}-00f067aa0ba902b7-00` })
    expect(res.status).toBe(200)
    await res.text()
    const spans = await flushedSpans()
    expect(spans.filter((s) => s.traceId === clientTrace)).toHaveLength(0)
    const upstream = one.requests.filter((r) => r.body?.model === 'gpt-4o').at(-1)!
    expect(upstream.headers.traceparent).toMatch(new RegExp(`^00-${clientTrace}-[0-9a-f]{16}-00$`))
  })

  test('the resource names the service; no prompt or completion text and no key leaves in a span', async () => {
    await flushedSpans()
    const resource = receiver.resources[0]!
    expect(resource.find((a) => a.key === 'service.name')?.value.stringValue).toBe('gateway-under-test')
    const all = receiver.payloads.join('\n')
    expect(all).not.toContain('secret prompt text')
    expect(all).not.toContain('hello') // the mock's answer echoes the prompt
    expect(all).not.toContain(MASTER)
    expect(all).not.toContain('sk-one-tracing')
  })
})

test('tracing off: no span state, no traceparent upstream', async () => {
  const upstream = startMockOpenAI()
  const g = await startGateway({ OPENAI_API_KEY: 'sk-off-0123456789', OPENAI_BASE_URL: upstream.url, GATEWAY_MASTER_KEY: MASTER })
  try {
    expect(g.gateway.tracing).toBeUndefined()
    const res = await fetch(`${g.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json', traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
      body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    })
    expect(res.status).toBe(200)
    await res.text()
    expect(upstream.requests.at(-1)?.headers.traceparent).toBeUndefined()
  } finally {
    await g.stop()
    upstream.stop()
  }
})

describe('tracing settings from the standard variables', () => {
  test('off unless an endpoint is set; OTEL_SDK_DISABLED and OTEL_TRACES_EXPORTER=none switch it off', () => {
    expect(tracingSettingsFromEnv({})).toBeUndefined()
    expect(tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' })).toBeUndefined()
    expect(tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined()
  })
  test('endpoint, traces endpoint, service name, resource attributes, sampler', () => {
    const s = tracingSettingsFromEnv({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod,service.name=from-attrs',
      OTEL_TRACES_SAMPLER: 'traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
    })!
    expect(s.url).toBe('http://c:4318/v1/traces')
    expect(s.serviceName).toBe('from-attrs')
    expect(s.resourceAttributes['deployment.environment']).toBe('prod')
    expect(s.sampler.toString()).toContain('0.25')
    expect(tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t:4318/custom', OTEL_SERVICE_NAME: 'gw' })).toMatchObject({
      url: 'http://t:4318/custom',
      serviceName: 'gw',
      captureContent: false,
    })
  })
  test('unsupported values are refused with the variable named', () => {
    expect(() => tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_SAMPLER: 'sometimes' })).toThrow('OTEL_TRACES_SAMPLER')
    expect(() => tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow('grpc')
    expect(() => tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' })).toThrow(
      'OTEL_TRACES_SAMPLER_ARG',
    )
  })
})

test('shutdown does not wait for an unreachable collector beyond its deadline', async () => {
  const upstream = startMockOpenAI()
  const tracing = tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' })
  const g = await startGateway({ OPENAI_API_KEY: 'sk-dead-0123456789', OPENAI_BASE_URL: upstream.url, GATEWAY_MASTER_KEY: MASTER }, { tracing })
  try {
    const res = await fetch(`${g.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    })
    await res.text()
  } finally {
    const t0 = Date.now()
    await g.stop()
    expect(Date.now() - t0).toBeLessThan(4000)
    upstream.stop()
  }
}, 10_000)

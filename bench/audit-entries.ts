/**
 * @module Realistic audit entries for the audit benchmarks (bench/audit-seed.ts): six providers and their models,
 * virtual models, 200 user paths under 20 teams, 50,000 sessions, 8 % upstream or gateway errors, streams,
 * labels, request and response bodies. Deterministic (seeded PRNG), so two runs give the same data.
 */
import type { AuditLogEntry } from '../src/audit/entry.ts'
import type { UsageRecord } from '../src/usage/record.ts'

/** mulberry32: small, fast, good enough for test data. */
function prng(seed: number) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
/** The generator's PRNG (also for the seeder's time jitter, so one seed fixes the whole data set). */
export const rand = prng(42)
const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!
const hex = (n: number) => Array.from({ length: n }, () => Math.floor(rand() * 16).toString(16)).join('')
const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-${pick(['8', '9', 'a', 'b'])}${hex(3)}-${hex(12)}`

const PROVIDERS = [
  { name: 'openai', type: 'openai', models: ['gpt-4o-mini', 'gpt-4o', 'gpt-4.1', 'o4-mini'] },
  { name: 'azure-east', type: 'azure-openai', models: ['gpt-4o', 'gpt-4o-mini'] },
  { name: 'anthropic', type: 'anthropic', models: ['claude-sonnet-4', 'claude-haiku-4'] },
  { name: 'groq', type: 'groq', models: ['llama-3.3-70b', 'qwen-qwq-32b'] },
  { name: 'mistral', type: 'mistral', models: ['mistral-large', 'codestral'] },
  { name: 'deepseek', type: 'deepseek', models: ['deepseek-chat', 'deepseek-reasoner'] },
] as const
const VIRTUAL = ['fast', 'smart', 'cheap', 'coder']
const TEAMS = Array.from({ length: 20 }, (_, i) => `/acme/team-${i}`)
const USER_PATHS = TEAMS.flatMap((t) => Array.from({ length: 10 }, (_, i) => `${t}/user-${i}`))
const SESSIONS = Array.from({ length: 50_000 }, uuid)
/** Request labels (docs/labels.md): a third of the entries carry one or two. */
const LABELS = ['env:prod', 'env:staging', 'feature:chat', 'feature:search', 'feature:summaries', 'batch', 'eval', 'canary']
const ERRORS = [
  {
    status: 429,
    type: 'rate_limit_error',
    code: 'rate_limit_exceeded',
    message: (p: string) => `Upstream rate limit (provider '${p}', HTTP 429): Rate limit reached for requests`,
  },
  {
    status: 500,
    type: 'provider_error',
    code: 'upstream_http_500',
    message: (p: string) => `Upstream error (provider '${p}', HTTP 500): The server had an error while processing your request.`,
  },
  {
    status: 503,
    type: 'provider_error',
    code: 'upstream_http_503',
    message: (p: string) => `Upstream error (provider '${p}', HTTP 503): The engine is currently overloaded, please try again later.`,
  },
  { status: 401, type: 'authentication_error', code: 'invalid_api_key', message: () => 'Invalid or missing API key. (unknown API key)' },
  { status: 400, type: 'invalid_request_error', code: 'invalid_request', message: () => `messages: expected an array, got ${pick(['string', 'object', 'null'])}` },
  { status: 404, type: 'not_found_error', code: 'model_not_found', message: () => `The model '${pick(['gpt-5-turbo', 'claude-9', 'llama-x'])}' does not exist on this gateway.` },
] as const

export function benchAuditEntry(ts: number, withBodies: boolean): AuditLogEntry {
  const id = Bun.randomUUIDv7('hex', ts) // like the gateway's own ids (src/pipeline/context.ts)
  const provider = pick(PROVIDERS)
  const model = pick(provider.models)
  const alias = rand() < 0.3
  const roll = rand()
  const error = roll < 0.08 ? pick(ERRORS) : undefined
  const gatewayError = error && (error.status === 401 || error.status === 400 || error.status === 404)
  const stream = rand() < 0.4
  const path = rand() < 0.85 ? '/v1/chat/completions' : rand() < 0.9 ? '/v1/responses' : '/v1/models'
  const prompt = Math.floor(rand() * 4000)
  const cached = Math.floor(prompt * rand() * 0.5)
  const out = Math.floor(rand() * 800)
  const duration = Math.floor((200 + rand() * 4000) * 1e6)
  const e: AuditLogEntry = {
    id,
    timestamp: new Date(ts).toISOString(),
    duration_ns: duration,
    request_id: rand() < 0.8 ? id : `req_${hex(24)}`,
    requested_model: path === '/v1/models' ? '' : alias ? pick(VIRTUAL) : `${provider.name}/${model}`,
    resolved_model: gatewayError ? '' : `${provider.name}/${model}`,
    provider: gatewayError ? '' : provider.type,
    provider_name: gatewayError ? '' : provider.name,
    method: path === '/v1/models' ? 'GET' : 'POST',
    path,
    status_code: error?.status ?? 200,
    stream,
    error_type: error?.type ?? '',
    session_id: rand() < 0.7 ? pick(SESSIONS) : '',
    user_path: pick(USER_PATHS),
    principal_id: `key_${hex(12)}`,
    auth_key_id: `key_${hex(12)}`,
    auth_method: 'managed_key',
    client_ip: `10.0.${Math.floor(rand() * 255)}.${Math.floor(rand() * 255)}`,
    cache_type: rand() < 0.05 ? 'exact' : '',
    alias_used: alias,
    workflow_version_id: 'wfv_2f1c0d7e9b3a4c58a6e1f0b2c3d4e5f6',
    data: {
      api_key_hash: hex(16),
      user_agent: pick(['OpenAI/JS 7.57.0', 'OpenAI/Python 2.3.0', 'claude-cli/2.0.14 (external, cli)', 'Cursor/1.7']),
      temperature: 0.7,
      max_tokens: 1024,
      ...(error ? { error_code: error.code, error_message: error.message(provider.name), error_provider: gatewayError ? '' : provider.name } : {}),
      attempts: gatewayError
        ? []
        : [
            {
              seq: 1,
              kind: 'primary',
              model,
              provider_name: provider.name,
              provider_type: provider.type,
              started_at: new Date(ts + 2).toISOString(),
              duration_ns: duration - 1e6,
              success: !error,
              status_code: error?.status ?? 200,
            },
          ],
      ...(rand() < 0.33 ? { labels: rand() < 0.5 ? [pick(LABELS)] : [...new Set([pick(LABELS), pick(LABELS)])] } : {}),
      workflow_features: { audit: true, budget: false, cache: true, failover: false, guardrails: false, usage: true },
      ...(withBodies
        ? {
            request_body: {
              model,
              stream,
              messages: [
                { role: 'system', content: 'You are a helpful coding assistant.' },
                { role: 'user', content: `Explain item ${hex(6)} of the build in two sentences.` },
              ],
            },
            response_body: error
              ? undefined
              : {
                  id: `chatcmpl-${hex(20)}`,
                  object: 'chat.completion',
                  created: Math.floor(ts / 1000),
                  model,
                  choices: [{ index: 0, message: { role: 'assistant', content: `Item ${hex(6)} compiles the sources and links them. ${hex(40)}` }, finish_reason: 'stop' }],
                },
          }
        : {}),
    },
    usage: error
      ? undefined
      : {
          input_tokens: prompt,
          output_tokens: out,
          total_tokens: prompt + out,
          cached_input_tokens: cached,
          uncached_input_tokens: prompt - cached,
          cache_write_input_tokens: 0,
          cached_input_ratio: prompt ? cached / prompt : 0,
          estimated_cached_characters: cached * 4,
          rewrite_tokens_saved: 0,
          rewrite_cost_saved: 0,
          entries: 1,
        },
  }
  return e
}

/** The usage record the gateway meters beside an entry (one per audited request with the defaults). */
export const benchUsageRecord = (e: AuditLogEntry): UsageRecord => ({
  id: e.id,
  ts: Date.parse(e.timestamp),
  key_id: e.auth_key_id,
  user_path: e.user_path,
  provider_name: e.provider_name,
  provider_type: e.provider,
  model: e.resolved_model,
  requested_model: e.requested_model,
  prompt_tokens: e.usage?.input_tokens ?? 0,
  completion_tokens: e.usage?.output_tokens ?? 0,
  total_tokens: e.usage?.total_tokens ?? 0,
  cached_tokens: e.usage?.cached_input_tokens ?? 0,
  cache_write_tokens: 0,
  reasoning_tokens: 0,
  cost_usd: 0.0012,
  saved_usd: 0,
  rewrite_tokens_saved: 0,
  rewrite_cost_saved: 0,
  priced: true,
  estimated: false,
  cache_hit: false,
  labels: e.data.labels,
})

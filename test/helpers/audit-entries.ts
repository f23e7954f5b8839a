/**
 * @module Audit log entries for store and writer tests: every field filled with a plain default, overridable.
 */
import type { AuditSink } from '../../src/stores/types.ts'
import type { AuditLogEntry } from '../../src/audit/entry.ts'
import { encodeAuditEntry, type AuditRow } from '../../src/audit/record.ts'

export const T0 = Date.UTC(2026, 10, 20, 12)

/** An entry's usage with every field set: 12 tokens in (2 of them cached), 5 out. */
export const SAMPLE_USAGE = {
  input_tokens: 12,
  output_tokens: 5,
  total_tokens: 17,
  cached_input_tokens: 2,
  uncached_input_tokens: 10,
  cache_write_input_tokens: 0,
  cached_input_ratio: 2 / 12,
  estimated_cached_characters: 8,
  rewrite_tokens_saved: 0,
  rewrite_cost_saved: 0,
  entries: 1,
} satisfies AuditLogEntry['usage']

let n = 0
/** `at` sets the start time (epoch ms); without it entries are one second apart from T0. */
export function makeEntry(over: Partial<AuditLogEntry> & { at?: number } = {}): AuditLogEntry {
  const { at, ...rest } = over
  const start = at ?? T0 + n++ * 1000
  const id = Bun.randomUUIDv7('hex', start) // like the gateway's own ids
  return {
    id,
    timestamp: new Date(start).toISOString(),
    duration_ns: 5_000_000,
    request_id: id,
    requested_model: 'fast',
    resolved_model: 'openai/gpt-4o-mini',
    provider: 'openai',
    provider_name: 'openai',
    method: 'POST',
    path: '/v1/chat/completions',
    status_code: 200,
    stream: false,
    error_type: '',
    session_id: '',
    user_path: '/',
    principal_id: 'master',
    auth_key_id: '',
    auth_method: 'master_key',
    client_ip: '127.0.0.1',
    cache_type: '',
    alias_used: true,
    workflow_version_id: 'wfv_1',
    data: { workflow_features: { audit: true, budget: false, cache: false, failover: false, guardrails: false, usage: true } },
    ...rest,
  }
}

/** Entries encoded as the writer queues them, for stores and spill files. */
export const rowsOf = (entries: readonly AuditLogEntry[]): AuditRow[] => entries.map((e) => encodeAuditEntry(e))

/** Hands entries to a gateway's audit sink and waits until they are stored. */
export async function seedAudit(sink: AuditSink, entries: readonly AuditLogEntry[]): Promise<void> {
  for (const e of entries) sink.record(e)
  await sink.flush()
}

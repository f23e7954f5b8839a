/**
 * @module Key and usage records for store tests: every field filled with a plain default, overridable.
 */
import type { ApiKeyRecord } from '../../src/stores/types.ts'
import type { UsageRecord } from '../../src/usage/record.ts'
import { T0 } from './audit-entries.ts'

/** Key `key-<i>`, created `i` seconds into 2030 (so a higher `i` is newer). */
export function keyRecord(i: number, extra: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  const at = new Date(Date.UTC(2030, 0, 1, 0, 0, i)).toISOString()
  return {
    id: `key-${i}`,
    name: `key ${i}`,
    description: '',
    keyHash: `hash-${i}`,
    redactedKey: `sk-gw-...${i}`,
    userPath: null,
    allowedModels: null,
    role: null,
    expiresAt: null,
    createdAt: at,
    updatedAt: at,
    revokedAt: null,
    createdBy: 'master',
    ...extra,
  }
}

/** A priced, unestimated usage record at T0 for key k1. */
export function usageRecord(id: string, extra: Partial<UsageRecord> = {}): UsageRecord {
  return {
    id,
    ts: T0,
    key_id: 'k1',
    user_path: '/team',
    provider_name: 'openai',
    provider_type: 'openai',
    model: 'gpt-4o-mini',
    requested_model: 'gpt-4o-mini',
    prompt_tokens: 10,
    completion_tokens: 5,
    total_tokens: 15,
    cached_tokens: 2,
    cache_write_tokens: 0,
    reasoning_tokens: 0,
    cost_usd: 0.25,
    saved_usd: 0,
    rewrite_tokens_saved: 0,
    rewrite_cost_saved: 0,
    priced: true,
    estimated: false,
    cache_hit: false,
    labels: [],
    ...extra,
  }
}

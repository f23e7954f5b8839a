/**
 * @module A priced tools/call as a usage record, so /admin/usage and the dashboard count tool calls beside model
 * requests: unit `call` (summed as `calls`), the price as its cost, the server as the provider and the tool (the
 * server's own name) as the model. Its id is the audit entry's, so the entry's view shows it. Only calls that
 * reached the server are recorded: exactly those whose price the budgets keep (./call-limits.ts).
 */
import type { UsageRecord } from '../usage/record.ts'
import type { McpExchange } from './audit-entry.ts'

export interface UsageSink {
  record(record: UsageRecord): void
}

export function toolCallUsage(x: McpExchange, priceUsd: number): UsageRecord {
  return {
    id: x.id,
    ts: x.startedAt.getTime(),
    key_id: x.principal?.keyId ?? x.principal?.id ?? '',
    user_path: x.userPath ?? '/',
    provider_name: x.server ?? '',
    provider_type: 'mcp',
    model: x.upstreamName ?? '',
    requested_model: x.exposedName ?? '',
    prompt_tokens: 0,
    completion_tokens: 0,
    total_tokens: 0,
    cached_tokens: 0,
    cache_write_tokens: 0,
    reasoning_tokens: 0,
    unit: 'call',
    units: 1,
    unit_variant: '',
    cost_usd: priceUsd,
    saved_usd: 0,
    rewrite_tokens_saved: 0,
    rewrite_cost_saved: 0,
    priced: true,
    estimated: false,
    cache_hit: false,
  }
}

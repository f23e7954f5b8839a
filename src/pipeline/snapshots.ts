/**
 * @module Records that plugins fill during a request and the audit log stores verbatim. Field names are the
 * service description's (AttemptSnapshot, FailoverSnapshot, RequestRevisionSnapshot, WorkflowFeaturesSnapshot).
 */
import type { UnitUsage } from '../usage/units.ts'

export const FEATURE_IDS = ['audit', 'budget', 'cache', 'failover', 'guardrails', 'usage'] as const
export type FeatureId = (typeof FEATURE_IDS)[number]
export type WorkflowFeaturesSnapshot = Record<FeatureId, boolean>

export type AttemptKind = 'primary' | 'retry' | 'failover'

export interface AttemptSnapshot {
  seq: number
  kind: AttemptKind
  model: string
  provider_name: string
  provider_type: string
  started_at: string
  duration_ns: number
  success: boolean
  status_code: number
  error_code?: string
  error_message?: string
  error_type?: string
  /** Raw upstream error body of a failed attempt; only with body logging on. */
  response_body?: unknown
  /** Redacted; only with header logging on. */
  response_headers?: Record<string, string>
}

export interface FailoverSnapshot {
  target_model: string
}

export interface RequestRevisionSnapshot {
  seq: number
  rewriter: string
  bytes_before: number
  bytes_after: number
  tokens_saved: number
  body?: unknown
  detail?: unknown
  no_change?: boolean
}

/**
 * Token counts of one request in OpenAI's sense: prompt includes cached, completion includes reasoning. Work priced
 * per unit (images, audio seconds, …) rides along as `unit`, `units`, `unit_variant` (src/usage/units.ts); absent
 * when the request did none.
 */
export interface TokenUsage extends Partial<UnitUsage> {
  prompt_tokens: number
  completion_tokens: number
  total_tokens: number
  cached_tokens: number
  cache_write_tokens: number
  reasoning_tokens: number
  /** True when the upstream reported no usage and the gateway counted the tokens itself. */
  estimated: boolean
}

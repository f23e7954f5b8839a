/**
 * @module The plugin contract. A plugin is a manifest (typed data) plus a factory returning hooks; the pipeline
 * runs `before` hooks in stage order, lets the route stage call the upstream, wraps the response with
 * `onResponse`, and calls `onComplete` exactly once when the response body has really ended.
 */
import { z } from 'zod'
import type { AuditRecorder } from '../audit/recorder.ts'
import type { GatewayConfig } from '../config/schema.ts'
import { errorResponse, type GatewayError } from '../errors/gateway-error.ts'
import type { Logger } from '../log/logger.ts'
import type { GatewayMetrics } from '../observability/metrics.ts'
import type { AuthFailureLimiter } from '../keys/failure-limiter.ts'
import type { KeyDirectory } from '../keys/key-directory.ts'
import type { CostModel } from '../limits/cost.ts'
import type { UsageService } from '../usage/usage-service.ts'
import type { LimitRegistry } from '../limits/registry.ts'
import type { ModelCatalog } from '../models/catalog.ts'
import type { ProviderRegistry } from '../providers/registry.ts'
import type { Stores } from '../stores/types.ts'
import type { UsageRecord } from '../usage/record.ts'
import type { Endpoint } from '../protocols/endpoints.ts'
import type { RequestContext } from './context.ts'
import type { FeatureId, TokenUsage } from './snapshots.ts'

/** The stages of the pipeline, in the order they run. */
export const STAGES = ['auth', 'resolve', 'rewrite', 'guard', 'cache', 'budget', 'route', 'observe'] as const
export type Stage = (typeof STAGES)[number]

/**
 * Where plugins run: each stage's plugins in the order they run. The manifest says what a plugin is; the chain
 * says where it runs (the gateway's chain is `pluginChain` in plugins/index.ts). The `auth` and `resolve` stages
 * run before a workflow is chosen; one `route` plugin dispatches.
 */
export type PluginChain = { readonly [S in Stage]?: readonly GatewayPlugin[] }

/** A plugin at its place in a chain. */
export interface ChainedPlugin {
  stage: Stage
  plugin: GatewayPlugin
}

/** The chain as one list in running order. */
export function chainOrder(chain: PluginChain): ChainedPlugin[] {
  return STAGES.flatMap((stage) => (chain[stage] ?? []).map((plugin) => ({ stage, plugin })))
}

/** What a plugin is: its identity, what switches it on and its settings. Where it runs is the chain's business. */
export interface PluginManifest<Config extends z.ZodType = z.ZodType> {
  /** kebab-case and stable: stored in config and audit rows. */
  id: string
  summary: string
  /** Workflow features that switch the plugin on; empty means core, always on. */
  features: readonly FeatureId[]
  /** Plugin ids this one supersedes when both are on (e.g. failover replaces the single-target router). */
  replaces?: readonly string[]
  /** What the plugin reads at completion; the pipeline captures the union of its plugins' needs, once. */
  captures?: CaptureNeeds
  config: Config
}

/**
 * Which endpoints a capture applies to: every one, or the rows a predicate over the row picks (`isMetered`,
 * `isCacheable` in src/protocols/endpoints.ts; a row added later is covered by what it declares, never by its id).
 */
export type EndpointSelection = 'all' | ((row: Endpoint) => boolean)

export interface CaptureNeeds {
  /** The response as one JSON document (`Outcome.responseBody`; a stream is folded). */
  responseBody?: EndpointSelection
  /** The upstream's own token usage (`Outcome.usage`), also from streams. */
  usage?: EndpointSelection
  /** The usage priced into a usage record (`Outcome.usageRecord`), estimated when the upstream sent none. */
  pricedUsage?: EndpointSelection
  /**
   * The answer before any `onResponse` hook changed it: the route stage's as the upstream gave it, or a `before`
   * hook's `answer` in its place (`Outcome.routeAnswer`; a stream is folded). What a cache keeps, so that a hit
   * goes through the output hooks exactly as the upstream's answer did. A stream costs a stage of its own
   * (src/pipeline/route-answer.ts).
   */
  routeAnswer?: EndpointSelection
  /**
   * Bodies and headers for the audit detail, as LOGGING_LOG_BODIES / LOGGING_LOG_HEADERS say: request and
   * response bodies, rewritten bodies in revisions, failed attempts' bodies and headers.
   */
  auditDetail?: boolean
}

/** What one pipeline captures for one endpoint: worked out once per pipeline and endpoint, read per request. */
export interface Capture {
  responseBody: boolean
  usage: boolean
  pricedUsage: boolean
  routeAnswer: boolean
  /** Bodies are kept for the audit entry (attempts, revisions, request and response). */
  bodies: boolean
  /** Headers are kept for the audit entry. */
  headers: boolean
}

/**
 * What a `before` hook decided. `respond` ends the request with its response as it is (a refusal; carrying an
 * error makes it the request's error: audit entry, protocol-shaped error body). `answer` answers in the upstream's
 * place (a cache hit): the response goes through every `onResponse` hook, as the route stage's answer would, so
 * output checks see it the same way.
 */
export type Decision = { kind: 'continue' } | { kind: 'respond'; response: Response; error?: GatewayError } | { kind: 'answer'; response: Response }
export const CONTINUE: Decision = Object.freeze({ kind: 'continue' })

/** Short-circuits with a GatewayError; the pipeline records it as the request's error. */
export function respondWithError(_ctx: RequestContext, error: GatewayError): Decision {
  return { kind: 'respond', response: errorResponse(error), error }
}

/** How a request ended, handed to every `onComplete` hook. */
export interface Outcome {
  status: number
  /** Set when the gateway or an upstream answered with an error, also mid-stream. */
  error?: GatewayError
  /** The client went away before the body ended. */
  clientAborted: boolean
  /** Upstream usage as reported, when the response carried it and a plugin captures usage. */
  usage?: TokenUsage
  /** The usage priced (estimated when the upstream sent none); when a plugin captures priced usage. */
  usageRecord?: UsageRecord
  /** The response as one JSON document (a stream is folded into its non-stream equivalent); only when captured. */
  responseBody?: unknown
  /** Raw response text when it is not JSON; only when captured. */
  responseText?: string
  /** The text `responseBody` was parsed from (a plain answer, not a folded stream); only when captured. */
  responseJsonText?: string
  /**
   * The answer before the `onResponse` hooks: the route stage's, or a `before` hook's `answer` (a stream folded;
   * undefined when it was not JSON, broke off or carried an error, and after a refusal); only when captured.
   */
  routeAnswer?: unknown
  /** Body bytes sent to the client. */
  bytesOut: number
  /** The answer went to the client unread through the byte pump (audio): no text to count, no body to keep. */
  answeredInBytes?: boolean
  /** What such an answer was (type, size, SHA-256), never its bytes; only when bodies are captured. */
  responseBinary?: { content_type: string; bytes: number; sha256: string }
  responseHeaders: Headers
  durationNs: number
  /** Milliseconds from request start to the first body byte sent to the client. */
  ttfbMs?: number
}

/**
 * The hooks of a plugin. They are made once per process; `settings` is the plugin's configuration in the workflow
 * that runs the request (parsed, and compiled by `GatewayPlugin.settings` when the plugin has that step). State
 * that lives for one request goes into the request's slot for the plugin (`ctx.state(slot)`), never into the
 * plugin's closure.
 */
export interface PluginHooks<Settings = unknown> {
  /** Runs in stage order; the first `respond` short-circuits the rest (auth failure, cache hit, budget denial). */
  before?(ctx: RequestContext, settings: Settings): Decision | Promise<Decision>
  /** Route stage only: produce the response for an upstream-bound endpoint, or the upstream's failure as a GatewayError. */
  dispatch?(ctx: RequestContext, settings: Settings): Promise<ResponseOrError>
  /** Upstream headers arrived; may replace or wrap the response, or answer with an error instead. */
  onResponse?(ctx: RequestContext, response: Response, settings: Settings): ResponseOrError | Promise<ResponseOrError>
  /** Exactly once per request: after the body ended, was cancelled, or failed. Errors are logged, not sent. */
  onComplete?(ctx: RequestContext, outcome: Outcome, settings: Settings): void | Promise<void>
}

export type ResponseOrError = Response | GatewayError

export interface PluginDeps {
  config: GatewayConfig
  providers: ProviderRegistry
  catalog: ModelCatalog
  stores: Stores
  /** Managed API keys: the in-memory snapshot requests are checked against. */
  keys: KeyDirectory
  /** Budget and rate-limit definitions (in memory). */
  limits: LimitRegistry
  /** Prices of models, for budgets. */
  costModel: CostModel
  /** Price table and usage records. */
  usage: UsageService
  /** Decides which authentication failures are audited (floods are counted, not written). */
  authFailures: AuthFailureLimiter
  log: Logger
  /** The audit log's writer queue: `record` never waits (src/stores/write-path/audit-writer.ts). */
  audit: AuditRecorder
  /** Prometheus metrics, when enabled; plugins register state read at scrape time (circuit breakers). */
  metrics?: GatewayMetrics
  /** Work to finish before the process exits (e.g. draining a write queue); runs after the server stopped. */
  onShutdown(task: () => Promise<void> | void): void
}

export interface GatewayPlugin<Config extends z.ZodType = z.ZodType, Settings = z.infer<Config>> {
  manifest: PluginManifest<Config>
  /** Once per process, whatever the number of workflows. */
  create(deps: PluginDeps): PluginHooks<Settings>
  /**
   * Once per workflow version: turns the validated configuration into what the hooks read (compiled rules, for
   * instance). Without it the hooks get the configuration itself.
   */
  settings?(config: z.infer<Config>): Settings
}

/** The settings schema of a plugin that has none. */
export const noSettings = z.object({})

/** Types a manifest (its config schema's type flows on to the plugin's hooks). */
export function definePluginManifest<Config extends z.ZodType>(manifest: PluginManifest<Config>): PluginManifest<Config> {
  return manifest
}

export function definePlugin<Config extends z.ZodType, Settings = z.infer<Config>>(plugin: GatewayPlugin<Config, Settings>): GatewayPlugin<Config, Settings> {
  return plugin
}

/**
 * @module Everything one request carries through the pipeline: ids, timings, the parsed ingress body, who
 * called, where it is routed, and the records plugins leave for the audit log. Built by src/http, read and
 * written by plugins; plugins never see the web framework.
 */
import type { GatewayError } from '../errors/gateway-error.ts'
import type { UsageRecord } from '../usage/record.ts'
import type { Logger } from '../log/logger.ts'
import type { ResolvedTarget } from '../providers/types.ts'
import type {
  AttemptSnapshot,
  FailoverSnapshot,
  RequestRevisionSnapshot,
  WorkflowFeaturesSnapshot,
} from './snapshots.ts'

/** The API a request came in on. `not_found` is any other path under /v1 (it still gets auth and an audit entry). */
export type EndpointId =
  | 'chat.completions'
  | 'responses'
  | 'messages'
  | 'messages.count_tokens'
  | 'models.list'
  | 'models.get'
  | 'not_found'

export type AuthMethod = 'master_key' | 'managed_key' | 'none'

export interface Principal {
  method: AuthMethod
  /** Stable id of the principal: the managed key's id, `master`, or `anonymous`. */
  id: string
  keyId?: string
  /** Hash of the presented key (never the key itself). */
  keyHash?: string
  /** Selectors, virtual model names or `provider/*` patterns; undefined means unrestricted. */
  allowedModels?: readonly string[]
  /** User path the key is bound to; requests may narrow it, never widen it. */
  userPath?: string
  dashboardEnabled?: boolean
}

/**
 * A plugin's slot for per-request state: made once per plugin module (`requestSlot<State>('my-plugin')`), read
 * and written through `ctx.state(slot)` / `ctx.setState(slot, value)`. The state lives on the request's context
 * and goes with it, whichever workflow's pipeline runs the plugin's hooks.
 */
export interface RequestSlot<State> {
  readonly name: string
  readonly index: number
  /** Carries the type only. */
  readonly _state?: State
}

let slotCount = 0

export function requestSlot<State>(name: string): RequestSlot<State> {
  return { name, index: slotCount++ }
}

export interface RequestContextInit {
  endpoint: EndpointId
  method: string
  path: string
  headers: Headers
  clientIp: string
  log: Logger
  /** Fires when the client goes away. */
  clientSignal: AbortSignal
  /** Parameter from the path, e.g. the model of GET /v1/models/{id}. */
  pathParam?: string
}

export class RequestContext {
  /**
   * The gateway's own id for this request; the audit entry's `id`. Time-ordered (UUIDv7): the audit log indexes
   * it, and random keys cost a random page write per entry once the log is large (42 ms instead of 2.5 ms per
   * 200-entry batch at 1M entries).
   */
  readonly id = Bun.randomUUIDv7()
  readonly startedAt = new Date()
  readonly startNs = Bun.nanoseconds()
  readonly endpoint: EndpointId
  readonly method: string
  readonly path: string
  readonly headers: Headers
  readonly clientIp: string
  readonly clientSignal: AbortSignal
  readonly pathParam?: string
  /** The client's X-Request-ID when it sent one, else the gateway id. Echoed as `x-request-id`. */
  readonly requestId: string
  log: Logger

  /** Parsed JSON body of a POST, as the client sent it (plugins that rewrite it keep `originalBody` intact). */
  body: Record<string, unknown> = {}
  /** The client's body text exactly as received (kept for the audit log). */
  originalBodyText = ''
  originalBody: unknown = undefined
  requestBodyTooBig = false
  /** A problem found while reading the body (invalid JSON, too large); raised after authentication. */
  ingressError?: GatewayError
  stream = false

  principal?: Principal
  /** Precise reason of an authentication failure; goes to the audit entry, never to the client. */
  authFailureReason?: string
  /**
   * True when this authentication failure is one of a burst over the failure limit: the client still gets its
   * 401, but the audit sink skips the entry so a flood cannot fill the audit store.
   */
  auditSuppressed = false
  userPath?: string
  sessionId?: string
  /** From the tagging headers (src/labels), set before the pipeline runs. */
  labels: string[] = []

  requestedModel?: string
  target?: ResolvedTarget
  aliasUsed = false
  /** Other targets of a weighted virtual model, in the order failover should try them. */
  alternativeTargets: string[] = []
  failover?: FailoverSnapshot

  readonly attempts: AttemptSnapshot[] = []
  readonly revisions: RequestRevisionSnapshot[] = []
  workflowVersionId = ''
  features: WorkflowFeaturesSnapshot = { audit: true, budget: false, cache: false, failover: false, guardrails: false, usage: false }
  /** Set by plugins that need the response folded into one JSON document at completion (audit bodies, usage, cache). */
  captureResponseBody = false
  /** Set by plugins that need the upstream's usage from streams (cheaper than folding the whole body). */
  captureUsage = false
  cacheType = ''
  /** Audit capture switches in effect for this request (LOGGING_LOG_BODIES / LOGGING_LOG_HEADERS with audit on). */
  logBodies = false
  logHeaders = false

  error?: GatewayError
  /** The request's usage and cost, set by the usage meter before the audit entry is built. */
  usageRecord?: UsageRecord

  /** Per-request plugin state, by slot index (see `requestSlot`). */
  private readonly slots: unknown[] = []

  constructor(init: RequestContextInit) {
    this.endpoint = init.endpoint
    this.method = init.method
    this.path = init.path
    this.headers = init.headers
    this.clientIp = init.clientIp
    this.clientSignal = init.clientSignal
    this.pathParam = init.pathParam
    const clientRequestId = init.headers.get('x-request-id')
    this.requestId = clientRequestId && clientRequestId.length <= 200 ? clientRequestId : this.id
    this.log = init.log
  }

  state<State>(slot: RequestSlot<State>): State | undefined {
    return this.slots[slot.index] as State | undefined
  }

  setState<State>(slot: RequestSlot<State>, value: State): void {
    this.slots[slot.index] = value
  }

  elapsedNs(): number {
    return Bun.nanoseconds() - this.startNs
  }
}

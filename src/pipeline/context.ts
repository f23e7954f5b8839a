/**
 * @module Everything one request carries through the pipeline: ids, timings, the parsed ingress body, who
 * called, where it is routed, and the records plugins leave for the audit log. Built by src/http, read and
 * written by plugins; plugins never see the web framework. Each field says who writes it; everyone else reads.
 * What a plugin keeps for itself between its hooks goes into its own slot (`ctx.state(slot)`), not here.
 */
import type { AdminGrant } from '../admin/roles.ts'
import type { GatewayError } from '../errors/gateway-error.ts'
import type { Authentication } from '../keys/authenticator.ts'
import type { Logger } from '../log/logger.ts'
import type { MultipartUpload, UploadPart } from '../http/multipart-upload.ts'
import type { StreamedBody } from '../http/streamed-body.ts'
import type { PassthroughRoute } from '../providers/passthrough-route.ts'
import type { ResolvedTarget } from '../providers/types.ts'
import type { EndpointId } from '../protocols/endpoints.ts'
import type { Capture, Outcome } from './types.ts'
import type { StreamFilter } from './sse.ts'
import type { TargetAdaptation } from './target-adaptation.ts'
import { abortListener, type AbortListener, type RequestsEnd } from './context-abort.ts'
import type { AttemptSnapshot, FailoverSnapshot, RequestRevisionSnapshot, TokenUsage, WorkflowFeaturesSnapshot } from './snapshots.ts'

export type { EndpointId }

export type AuthMethod = 'master_key' | 'managed_key' | 'jwt' | 'oidc_session' | 'none'

export interface Principal {
  method: AuthMethod
  /** Stable id of the principal: the managed key's id, `master`, `anonymous`, or `jwt:<issuer>#<subject>`. */
  id: string
  keyId?: string
  /** Hash of the presented key (never the key itself). */
  keyHash?: string
  /** Selectors, virtual model names or `provider/*` patterns; undefined means unrestricted. */
  allowedModels?: readonly string[]
  /** User path the key is bound to; requests may narrow it, never widen it. */
  userPath?: string
  /** What it may do on /admin (role and user-path subtree); absent: no admin access. */
  admin?: AdminGrant
  /** A person signed in through the OpenID provider: their email, for the admin audit trail. */
  email?: string
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

const NO_CAPTURE: Capture = Object.freeze({ responseBody: false, usage: false, pricedUsage: false, routeAnswer: false, bodies: false, headers: false })

/** Until the pipeline applies its workflow's (one shared object, not one per request). */
const DEFAULT_FEATURES: WorkflowFeaturesSnapshot = Object.freeze({ audit: true, budget: false, cache: false, failover: false, guardrails: false, usage: false })

export function requestSlot<State>(name: string): RequestSlot<State> {
  return { name, index: slotCount++ }
}

export interface RequestContextInit {
  endpoint: EndpointId
  method: string
  path: string
  headers: Headers
  /**
   * The client's address, or how to read it from the connection: read on first use (most requests never need it;
   * reading it costs a system call), which must come while the connection is open (see `keepClientIp`).
   */
  clientIp: string | (() => string)
  log: Logger
  /** Fires when the client goes away. */
  clientSignal: AbortSignal
  /** Ends the request's work when the gateway ends every request (its drain deadline). */
  requestsEnd?: RequestsEnd
  /** Parameter from the path, e.g. the model of GET /v1/models/{id}. */
  pathParam?: string
  /** The key in the headers, checked at ingress before the body was read; the auth plugin uses it as it is. */
  authentication?: Authentication
}

/** What a batch line's request carries besides a live request's (src/batches/line-runner.ts). */
export interface BatchLineRequest {
  batchId: string
  customId: string
  /** Told the outcome once the request is complete. */
  finished(outcome: Outcome): void
  /**
   * In the route stage's place: the answer (a provider batch API's answer to this line), or undefined to let the
   * route stage call the provider. Read by src/pipeline/run.ts.
   */
  route?(ctx: RequestContext): Response | undefined
  /** The line was handed to a provider's batch API, not answered: nothing to meter (src/usage/meter.ts). */
  handedOver?: boolean
  /** The answer came from a provider's batch API: priced at its batch price (src/usage/meter.ts). */
  batchPriced?: boolean
  /**
   * The line's request was counted by the rate limits when it was handed to the provider's batch API: its answer,
   * replayed through the pipeline, is not counted again (plugins/rate-limiter).
   */
  rateCounted?: boolean
  /** The batch holds its estimated cost in the budgets: the budget plugin reserves nothing again, only adds the real cost. */
  budgetHeld?: boolean
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
  private clientIpOrSource: string | (() => string)
  /** The client going away (the request's own signal); `clientSignal` adds the gateway's end of all requests. */
  private readonly requestSignal: AbortSignal
  private readonly requestsEnd?: RequestsEnd
  private joinedSignal?: AbortSignal
  readonly authentication?: Authentication
  readonly pathParam?: string
  /** The client's X-Request-ID when it sent one, else the gateway id. Echoed as `x-request-id`. */
  readonly requestId: string
  /** OpenTelemetry trace id of this request when it is traced (sampled); recorded in the audit entry. Telemetry. */
  traceId?: string

  /**
   * The request body on its way upstream. Set by src/http/ingress.ts; then replaced, in stage order, by the
   * plugins that rewrite requests (through `applyRewrite` in src/pipeline/rewrite.ts where a revision is due).
   */
  body: Record<string, unknown> = {}
  /** The client's body text exactly as received (kept for the audit log). Ingress. */
  originalBodyText = ''
  /** The parsed body as the client sent it. Ingress. */
  originalBody: unknown = undefined
  /** Ingress. */
  requestBodyTooBig = false
  /** A problem found while reading the body (invalid JSON, too large); raised after authentication. Ingress. */
  ingressError?: GatewayError
  /** Ingress. */
  stream = false
  /** The `model` the client asked for. Ingress (for the pass-through: the passthrough plugin, as `<provider>/<model>`). */
  requestedModel?: string
  /** The body's bytes as received, for a row that forwards them unchanged (the pass-through). Ingress. */
  rawBody?: Uint8Array<ArrayBuffer>
  /** A multipart upload's fields read and its files still to stream upstream (`body: 'multipart'` rows). Ingress. */
  upload?: MultipartUpload
  /** A `body: 'stream'` row's body, unread: the row's local answer reads it (a file upload). Ingress. */
  streamedBody?: StreamedBody
  /** The form parts a local answer received from `streamedBody` (name, filename, type, size, SHA-256), for the audit entry. That answer. */
  receivedParts?: UploadPart[]
  /** The query string as received, without `?` (the pass-through forwards it unchanged; a stored response's routes read theirs). Ingress. */
  rawQuery = ''
  /** Where a pass-through request goes (src/providers/passthrough-route.ts). The passthrough plugin. */
  passthrough?: PassthroughRoute

  /** Who called. The auth plugin (api-key-auth). */
  principal?: Principal
  /** Precise reason of an authentication failure; goes to the audit entry, never to the client. Auth plugin. */
  authFailureReason?: string
  /**
   * True when this authentication failure is one of a burst over the failure limit: the client still gets its
   * 401, but the audit sink skips the entry so a flood cannot fill the audit store. Auth plugin.
   */
  auditSuppressed = false
  /** Auth plugin. */
  userPath?: string
  /**
   * Asked by the stream pump before it forwards each chunk, so it must be cheap (an in-memory lookup): an error
   * ends the stream there with its error frame. Auth plugin: a key revoked while its stream runs.
   */
  streamStillAllowed?: () => GatewayError | undefined
  /** From the tagging headers (src/labels), set before the pipeline runs. */
  labels: string[] = []
  /**
   * Set when the request is a line of a batch the gateway runs: its audit entry names the batch and the line, and
   * the runner is told the outcome (its cost). The batch line runner (src/batches/line-runner.ts).
   */
  batchLine?: BatchLineRequest

  /** Where the request goes: the resolver; the route stage replaces it with the target that answered. */
  target?: ResolvedTarget
  /** The resolver. */
  aliasUsed = false
  /** Other targets of a weighted virtual model, in the order failover should try them. The resolver. */
  alternativeTargets: string[] = []
  /** The failover plugin, when a fallback answered. */
  failover?: FailoverSnapshot
  /**
   * How the body is adapted to a target other than the one the rewrite stage prepared it for (a failover target's
   * output limit and parameter rules); applied per attempt (src/pipeline/target-adaptation.ts). The parameter normaliser.
   */
  targetAdaptation?: TargetAdaptation

  /** One per upstream call, appended by src/providers/upstream-fetch.ts. */
  readonly attempts: AttemptSnapshot[] = []
  /** One per rewriter that ran, appended by src/pipeline/rewrite.ts. */
  readonly revisions: RequestRevisionSnapshot[] = []
  /** The response cache, on a hit. */
  cacheType = ''
  /** Usage from a stream's usage chunk hidden from the client (the usage meter); the pump never sees it. */
  hiddenStreamUsage?: TokenUsage
  /** Applied by the stream pump to the body's bytes before anything else sees them. The usage meter. */
  streamFilter?: StreamFilter

  /** The workflow version whose pipeline runs the request. src/pipeline/run.ts. */
  workflowVersionId = ''
  /** That workflow's features. src/pipeline/run.ts. */
  features: WorkflowFeaturesSnapshot = DEFAULT_FEATURES
  /** What the running pipeline captures for this endpoint (its plugins' `captures`). src/pipeline/run.ts. */
  capture: Capture = NO_CAPTURE
  /** The request's error, from a refusing hook, a failed upstream or a broken stream. src/pipeline/run.ts. */
  error?: GatewayError

  /** Per-request plugin state, by slot index (see `requestSlot`). */
  private slots?: unknown[]
  /** The process logger; `log` is made from it on first use. */
  private readonly baseLog: Logger
  /** What the request's log lines carry once the workflow is chosen (`workflowChosen`); plain fields, no object. */
  private logKeyId?: string
  private logModel?: string
  private logWorkflowVersion?: string
  private childLog?: Logger

  constructor(init: RequestContextInit) {
    this.endpoint = init.endpoint
    this.method = init.method
    this.path = init.path
    this.headers = init.headers
    this.clientIpOrSource = init.clientIp
    this.requestSignal = init.clientSignal
    this.requestsEnd = init.requestsEnd
    this.pathParam = init.pathParam
    this.authentication = init.authentication
    const clientRequestId = init.headers.get('x-request-id')
    this.requestId = clientRequestId && clientRequestId.length <= 200 ? clientRequestId : this.id
    this.baseLog = init.log
  }

  /** The client's address ('' when unknown). */
  get clientIp(): string {
    const ip = this.clientIpOrSource
    if (typeof ip === 'string') return ip
    return (this.clientIpOrSource = ip())
  }

  /** Reads the client's address now, while the connection is surely open, for a record made when the request ends. */
  keepClientIp(): void {
    if (typeof this.clientIpOrSource !== 'string') this.clientIpOrSource = this.clientIpOrSource()
  }

  /**
   * The request's logger: every line carries `request_id`, and the key id, model and workflow version once the
   * pipeline knows them. Made on first use, so a request that logs nothing pays nothing.
   */
  get log(): Logger {
    return (this.childLog ??= this.baseLog.child(this.logFieldValues()))
  }

  /**
   * The key id, model and workflow version join the request's later log lines. src/pipeline/run.ts, when the
   * workflow is chosen. Kept as strings: the fields object is built only if the request logs.
   */
  workflowChosen(keyId: string | undefined, model: string | undefined, workflowVersion: string): void {
    this.logKeyId = keyId
    this.logModel = model
    this.logWorkflowVersion = workflowVersion
    // A logger made earlier keeps its fields; the next use makes one with the new ones.
    this.childLog = undefined
  }

  private logFieldValues(): Record<string, string> {
    const fields: Record<string, string> = { request_id: this.requestId }
    if (this.logKeyId) fields.key_id = this.logKeyId
    if (this.logModel) fields.model = this.logModel
    if (this.logWorkflowVersion) fields.workflow_version = this.logWorkflowVersion
    return fields
  }

  /**
   * Aborted when the client goes away or the gateway ends every request (its reason is then a GatewayError).
   * Made on first use: most requests never ask for it (upstream calls use `onAbort`).
   */
  get clientSignal(): AbortSignal {
    if (!this.requestsEnd) return this.requestSignal
    return (this.joinedSignal ??= AbortSignal.any([this.requestSignal, this.requestsEnd.signal]))
  }

  /** Whether the request's work was ended (as `clientSignal.aborted`, without making the joined signal). */
  get aborted(): boolean {
    return this.requestSignal.aborted || (this.requestsEnd?.signal.aborted ?? false)
  }

  /** Why the work was ended (as `clientSignal.reason`): the gateway's error when it ended every request. */
  get abortReason(): unknown {
    const end = this.requestsEnd?.signal
    return end?.aborted ? end.reason : this.requestSignal.reason
  }

  /** Calls `call` once when the request's work is ended; `offAbort` with the listener returned stops it. */
  onAbort(call: () => void): AbortListener {
    const listener = abortListener(call)
    this.requestSignal.addEventListener('abort', call, { once: true })
    this.requestsEnd?.listen(listener)
    return listener
  }

  offAbort(listener: AbortListener): void {
    this.requestSignal.removeEventListener('abort', listener.call)
    this.requestsEnd?.unlisten(listener)
  }

  state<State>(slot: RequestSlot<State>): State | undefined {
    return this.slots?.[slot.index] as State | undefined
  }

  setState<State>(slot: RequestSlot<State>, value: State): void {
    this.slots ??= []
    this.slots[slot.index] = value
  }

  elapsedNs(): number {
    return Bun.nanoseconds() - this.startNs
  }
}

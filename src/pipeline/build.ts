/**
 * @module Turns a workflow (its features and plugin settings) into a ready-to-run pipeline, in the chain's order.
 * Plugins are created once per process (`createPlugins`); a pipeline binds their hooks to one workflow's settings, the way
 * a per-route configuration applies to one filter chain, and works out once what its plugins need captured.
 * Built when configuration changes, never per request.
 */
import { endpoint } from '../protocols/endpoints.ts'
import type { PriceTable } from '../usage/pricing.ts'
import type { EndpointId, RequestContext } from './context.ts'
import type { FeatureId, WorkflowFeaturesSnapshot } from './snapshots.ts'
import {
  chainOrder,
  type Capture,
  type ChainedPlugin,
  type EndpointSelection,
  type GatewayPlugin,
  type Outcome,
  type PluginChain,
  type PluginDeps,
  type PluginHooks,
  type ResponseOrError,
  type Stage,
} from './types.ts'

export interface WorkflowDefinition {
  id: string
  versionId: string
  features: WorkflowFeaturesSnapshot
  /** Settings per plugin id; validated by the plugin's own config schema. */
  plugins: Record<string, unknown>
}

/** What every pipeline of the process shares: the audit capture switches and the price table. */
export interface PipelineCore {
  /** LOGGING_LOG_BODIES / LOGGING_LOG_HEADERS: apply to plugins that capture the audit detail. */
  logging: { log_bodies: boolean; log_headers: boolean }
  prices: PriceTable
}

interface StageHook {
  pluginId: string
  stage: Stage
  before: NonNullable<BoundHooks['before']>
}

export interface BuiltPipeline {
  workflow: WorkflowDefinition
  pluginIds: string[]
  /** `before` hooks of the auth and resolve stages: they run before a workflow is chosen. */
  routingHooks: StageHook[]
  /** `before` hooks of the later stages. */
  policyHooks: StageHook[]
  dispatch?: NonNullable<BoundHooks['dispatch']>
  onResponse: NonNullable<BoundHooks['onResponse']>[]
  onComplete: { pluginId: string; hook: NonNullable<BoundHooks['onComplete']> }[]
  /** What this pipeline captures on an endpoint (the union of its plugins' `captures`). */
  capture(endpoint: EndpointId): Capture
  prices: PriceTable
}

export class PluginConfigError extends Error {}

/** A plugin at its place in the chain with its hooks, made once per process. */
export interface PluginInstance extends ChainedPlugin {
  hooks: PluginHooks
}

/** Creates every plugin of the chain, in running order. */
export function createPlugins(chain: PluginChain, deps: PluginDeps): PluginInstance[] {
  return chainOrder(chain).map(({ stage, plugin }) => ({ stage, plugin, hooks: plugin.create(deps) }))
}

/** The hooks of one plugin with one workflow's settings applied: what a pipeline runs. */
export interface BoundHooks {
  before?(ctx: RequestContext): ReturnType<NonNullable<PluginHooks['before']>>
  dispatch?(ctx: RequestContext): Promise<ResponseOrError>
  onResponse?(ctx: RequestContext, response: Response): ResponseOrError | Promise<ResponseOrError>
  onComplete?(ctx: RequestContext, outcome: Outcome): void | Promise<void>
}

/** Validates the raw settings against the plugin's schema and compiles them (`GatewayPlugin.settings`). */
export function pluginSettings(plugin: GatewayPlugin, raw: unknown): unknown {
  const parsed = plugin.manifest.config.safeParse(raw ?? {})
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new PluginConfigError(`plugins.${plugin.manifest.id}.${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`)
  }
  return plugin.settings ? plugin.settings(parsed.data) : parsed.data
}

export function bindHooks(hooks: PluginHooks, settings: unknown): BoundHooks {
  const { before, dispatch, onResponse, onComplete } = hooks
  return {
    before: before && ((ctx) => before(ctx, settings)),
    dispatch: dispatch && ((ctx) => dispatch(ctx, settings)),
    onResponse: onResponse && ((ctx, response) => onResponse(ctx, response, settings)),
    onComplete: onComplete && ((ctx, outcome) => onComplete(ctx, outcome, settings)),
  }
}

const ROUTING_STAGES: ReadonlySet<Stage> = new Set(['auth', 'resolve'])

export function buildPipeline(workflow: WorkflowDefinition, plugins: readonly PluginInstance[], core: PipelineCore): BuiltPipeline {
  const enabled = plugins.filter((p) => isEnabled(p.plugin.manifest.features, workflow.features))
  const replaced = new Set(enabled.flatMap((p) => p.plugin.manifest.replaces ?? []))
  const active = enabled.filter((p) => !replaced.has(p.plugin.manifest.id))

  const built: BuiltPipeline = {
    workflow,
    pluginIds: active.map((p) => p.plugin.manifest.id),
    routingHooks: [],
    policyHooks: [],
    onResponse: [],
    onComplete: [],
    capture: captureOf(
      active.map((p) => p.plugin),
      core.logging,
    ),
    prices: core.prices,
  }
  for (const { plugin, stage, hooks: unbound } of active) {
    const { id } = plugin.manifest
    const hooks = bindHooks(unbound, pluginSettings(plugin, workflow.plugins[id]))
    if (hooks.before) (ROUTING_STAGES.has(stage) ? built.routingHooks : built.policyHooks).push({ pluginId: id, stage, before: hooks.before })
    if (hooks.dispatch) {
      if (built.dispatch) throw new PluginConfigError(`two route plugins are active in workflow '${workflow.id}'`)
      built.dispatch = hooks.dispatch
    }
    if (hooks.onResponse) built.onResponse.push(hooks.onResponse)
    if (hooks.onComplete) built.onComplete.push({ pluginId: id, hook: hooks.onComplete })
  }
  return built
}

/** The union of the plugins' capture needs, one frozen answer per endpoint, computed on first use. */
export function captureOf(plugins: readonly GatewayPlugin[], logging: PipelineCore['logging']): (endpoint: EndpointId) => Capture {
  const needs = plugins.map((p) => p.manifest.captures ?? {})
  const covers = (selection: EndpointSelection | undefined, id: EndpointId) => selection === 'all' || (selection?.(endpoint(id)) ?? false)
  const auditDetail = needs.some((n) => n.auditDetail)
  const bodies = auditDetail && logging.log_bodies
  const headers = auditDetail && logging.log_headers
  const byEndpoint = new Map<EndpointId, Capture>()
  return (endpoint) => {
    let capture = byEndpoint.get(endpoint)
    if (!capture) {
      capture = Object.freeze({
        responseBody: bodies || needs.some((n) => covers(n.responseBody, endpoint)),
        usage: needs.some((n) => covers(n.usage, endpoint) || covers(n.pricedUsage, endpoint)),
        pricedUsage: needs.some((n) => covers(n.pricedUsage, endpoint)),
        routeAnswer: needs.some((n) => covers(n.routeAnswer, endpoint)),
        bodies,
        headers,
      })
      byEndpoint.set(endpoint, capture)
    }
    return capture
  }
}

function isEnabled(required: readonly FeatureId[], features: WorkflowFeaturesSnapshot): boolean {
  return required.length === 0 || required.some((f) => features[f])
}

/** Chooses the pipeline for a request once it is authenticated and its model resolved. */
export interface PipelineSelector {
  readonly fallback: BuiltPipeline
  select(ctx: RequestContext): BuiltPipeline
}

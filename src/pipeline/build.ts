/**
 * @module Turns a workflow (its features and plugin settings) into an ordered, ready-to-run pipeline. Plugins are
 * created once per process (`createPlugins`); a pipeline binds their hooks to one workflow's settings, the way
 * a per-route configuration applies to one filter chain. Built when configuration changes, never per request.
 */
import type { RequestContext } from './context.ts'
import type { FeatureId, WorkflowFeaturesSnapshot } from './snapshots.ts'
import { STAGES, type GatewayPlugin, type Outcome, type PluginDeps, type PluginHooks, type Stage } from './types.ts'

export interface WorkflowDefinition {
  id: string
  versionId: string
  features: WorkflowFeaturesSnapshot
  /** Settings per plugin id; validated by the plugin's own config schema. */
  plugins: Record<string, unknown>
}

interface StageHook {
  pluginId: string
  stage: Stage
  before: NonNullable<BoundHooks['before']>
}

export interface BuiltPipeline {
  workflow: WorkflowDefinition
  pluginIds: string[]
  prepare: NonNullable<BoundHooks['prepare']>[]
  /** `before` hooks of the auth and resolve stages: they run before a workflow is chosen. */
  routingHooks: StageHook[]
  /** `before` hooks of the later stages. */
  policyHooks: StageHook[]
  dispatch?: NonNullable<BoundHooks['dispatch']>
  onResponse: NonNullable<BoundHooks['onResponse']>[]
  onComplete: { pluginId: string; hook: NonNullable<BoundHooks['onComplete']> }[]
}

export class PluginConfigError extends Error {}

/** A plugin with its hooks, made once per process. */
export interface PluginInstance {
  plugin: GatewayPlugin
  hooks: PluginHooks
}

export function createPlugins(registry: readonly GatewayPlugin[], deps: PluginDeps): PluginInstance[] {
  return registry.map((plugin) => ({ plugin, hooks: plugin.create(deps) }))
}

/** The hooks of one plugin with one workflow's settings applied: what a pipeline runs. */
export interface BoundHooks {
  prepare?(ctx: RequestContext): void
  before?(ctx: RequestContext): ReturnType<NonNullable<PluginHooks['before']>>
  dispatch?(ctx: RequestContext): Promise<Response>
  onResponse?(ctx: RequestContext, response: Response): Response | Promise<Response>
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
  const { prepare, before, dispatch, onResponse, onComplete } = hooks
  return {
    prepare: prepare && ((ctx) => prepare(ctx, settings)),
    before: before && ((ctx) => before(ctx, settings)),
    dispatch: dispatch && ((ctx) => dispatch(ctx, settings)),
    onResponse: onResponse && ((ctx, response) => onResponse(ctx, response, settings)),
    onComplete: onComplete && ((ctx, outcome) => onComplete(ctx, outcome, settings)),
  }
}

const ROUTING_STAGES: ReadonlySet<Stage> = new Set(['auth', 'resolve'])

export function buildPipeline(workflow: WorkflowDefinition, plugins: readonly PluginInstance[]): BuiltPipeline {
  const enabled = plugins.filter((p) => isEnabled(p.plugin.manifest.features, workflow.features))
  const replaced = new Set(enabled.flatMap((p) => p.plugin.manifest.replaces ?? []))
  const active = enabled
    .filter((p) => !replaced.has(p.plugin.manifest.id))
    .sort((a, b) => STAGES.indexOf(a.plugin.manifest.stage) - STAGES.indexOf(b.plugin.manifest.stage) || a.plugin.manifest.order - b.plugin.manifest.order)

  const built: BuiltPipeline = {
    workflow,
    pluginIds: active.map((p) => p.plugin.manifest.id),
    prepare: [],
    routingHooks: [],
    policyHooks: [],
    onResponse: [],
    onComplete: [],
  }
  for (const { plugin, hooks: unbound } of active) {
    const { id, stage } = plugin.manifest
    const hooks = bindHooks(unbound, pluginSettings(plugin, workflow.plugins[id]))
    if (hooks.prepare) built.prepare.push(hooks.prepare)
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

function isEnabled(required: readonly FeatureId[], features: WorkflowFeaturesSnapshot): boolean {
  return required.length === 0 || required.some((f) => features[f])
}

/** Chooses the pipeline for a request once it is authenticated and its model resolved. */
export interface PipelineSelector {
  readonly fallback: BuiltPipeline
  select(ctx: RequestContext): BuiltPipeline
}

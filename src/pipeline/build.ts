/**
 * @module Turns a workflow (its features and plugin settings) into an ordered, ready-to-run pipeline. Built when
 * configuration changes, never per request.
 */
import type { RequestContext } from './context.ts'
import type { FeatureId, WorkflowFeaturesSnapshot } from './snapshots.ts'
import { STAGES, type GatewayPlugin, type PluginDeps, type PluginHooks, type Stage } from './types.ts'

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
  before: NonNullable<PluginHooks['before']>
}

export interface BuiltPipeline {
  workflow: WorkflowDefinition
  pluginIds: string[]
  prepare: NonNullable<PluginHooks['prepare']>[]
  /** `before` hooks of the auth and resolve stages: they run before a workflow is chosen. */
  routingHooks: StageHook[]
  /** `before` hooks of the later stages. */
  policyHooks: StageHook[]
  dispatch?: NonNullable<PluginHooks['dispatch']>
  onResponse: NonNullable<PluginHooks['onResponse']>[]
  onComplete: { pluginId: string; hook: NonNullable<PluginHooks['onComplete']> }[]
}

export class PluginConfigError extends Error {}

const ROUTING_STAGES: ReadonlySet<Stage> = new Set(['auth', 'resolve'])

export function buildPipeline(workflow: WorkflowDefinition, registry: readonly GatewayPlugin[], deps: PluginDeps): BuiltPipeline {
  const enabled = registry.filter((p) => isEnabled(p.manifest.features, workflow.features))
  const replaced = new Set(enabled.flatMap((p) => p.manifest.replaces ?? []))
  const active = enabled
    .filter((p) => !replaced.has(p.manifest.id))
    .sort((a, b) => STAGES.indexOf(a.manifest.stage) - STAGES.indexOf(b.manifest.stage) || a.manifest.order - b.manifest.order)

  const built: BuiltPipeline = {
    workflow,
    pluginIds: active.map((p) => p.manifest.id),
    prepare: [],
    routingHooks: [],
    policyHooks: [],
    onResponse: [],
    onComplete: [],
  }
  for (const plugin of active) {
    const { id, stage } = plugin.manifest
    const parsed = plugin.manifest.config.safeParse(workflow.plugins[id] ?? {})
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      throw new PluginConfigError(`plugins.${id}.${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`)
    }
    const hooks = plugin.create(parsed.data, deps)
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

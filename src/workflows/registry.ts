/**
 * @module The active workflows in memory, each with its pipeline built once, and the choice of one per request:
 * the most specific scope that matches wins (key, then user path subtree — deeper first —, then model, then
 * provider); the global default matches everything. Changes rebuild only what changed and apply to the next
 * request without a restart.
 */
import { GatewayError, gatewayErrors } from '../errors/gateway-error.ts'
import type { Logger } from '../log/logger.ts'
import { buildPipeline, createPlugins, PluginConfigError, type BuiltPipeline, type PipelineCore, type PipelineSelector, type PluginInstance } from '../pipeline/build.ts'
import type { RequestContext } from '../pipeline/context.ts'
import type { WorkflowFeaturesSnapshot } from '../pipeline/snapshots.ts'
import type { PluginChain, PluginDeps } from '../pipeline/types.ts'
import type { Changes } from '../stores/changes.ts'
import { Snapshot } from '../stores/snapshot.ts'
import type { WorkflowStore } from '../stores/types.ts'
import { effectiveFeatures, resolveFlags, sameDefinition, workflowInputSchema, type WorkflowInput, type WorkflowScope, type WorkflowVersion } from './definition.ts'

export const DEFAULT_WORKFLOW_NAME = 'default'

interface ActiveWorkflow {
  version: WorkflowVersion
  pipeline: BuiltPipeline
  specificity: number
}

export class WorkflowRegistry implements PipelineSelector {
  private active: ActiveWorkflow[] = []
  fallback: BuiltPipeline
  /** Every plugin's hooks, made once; each workflow's pipeline binds them to its own settings. */
  private readonly instances: readonly PluginInstance[]
  /** The active versions in memory, reloaded when any replica changes a workflow. */
  private readonly snapshot: Snapshot<WorkflowVersion[]>
  private readonly core: PipelineCore

  constructor(
    private readonly store: WorkflowStore,
    chain: PluginChain,
    deps: PluginDeps,
    private readonly processSwitches: WorkflowFeaturesSnapshot,
    private readonly log: Logger,
    changes?: Changes,
  ) {
    this.instances = createPlugins(chain, deps)
    this.core = { logging: deps.config.logging, prices: deps.usage.prices }
    this.fallback = this.build(builtInDefault())
    this.snapshot = new Snapshot({ name: 'workflows', load: () => this.store.listActive(), apply: (versions) => this.install(versions), changes, topic: 'workflows', log })
  }

  /** Loads the active versions, then applies the declared (YAML) workflows; each changed one becomes a new version. */
  async load(declared: readonly WorkflowInput[]): Promise<void> {
    for (const input of declared) await this.upsert(input, 'config')
    if (!(await this.store.latestByName(DEFAULT_WORKFLOW_NAME)))
      await this.upsert(workflowInputSchema.parse({ name: DEFAULT_WORKFLOW_NAME, description: 'Applies to every request no other workflow matches.' }), 'system')
    await this.snapshot.startOrThrow()
  }

  stop(): void {
    this.snapshot.stop()
  }

  snapshotStatus() {
    return this.snapshot.status()
  }

  private install(versions: WorkflowVersion[]): void {
    const previous = new Map(this.active.map((a) => [a.version.versionId, a]))
    this.active = versions.map((version) => previous.get(version.versionId) ?? { version, pipeline: this.build(version), specificity: specificity(version.scope) })
    const globalDefault = this.active.find((a) => a.version.name === DEFAULT_WORKFLOW_NAME)
    this.fallback = globalDefault?.pipeline ?? this.build(builtInDefault())
  }

  list(): WorkflowVersion[] {
    return this.active.map((a) => a.version)
  }

  history(id: string): Promise<WorkflowVersion[]> {
    return this.store.history(id)
  }

  /**
   * Creates the workflow, or a new version of the one with the same name when its definition changed. `previous`:
   * the newest version before this call (what an admin change's security event shows as before).
   */
  async upsert(raw: unknown, createdBy: string): Promise<{ version: WorkflowVersion; created: boolean; previous?: WorkflowVersion }> {
    const parsed = workflowInputSchema.safeParse(raw)
    if (!parsed.success) throw gatewayErrors.fromZod(parsed.error, { code: 'invalid_workflow', subject: 'workflow' })
    const input = parsed.data
    this.validatePluginSettings(input)
    const latest = await this.store.latestByName(input.name)
    if (latest?.active && sameDefinition(latest, input)) return { version: latest, created: false, previous: latest }
    const version: WorkflowVersion = {
      id: latest?.id ?? `wf_${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}`,
      versionId: `wfv_${crypto.randomUUID().replaceAll('-', '')}`,
      version: (latest?.version ?? 0) + 1,
      name: input.name,
      description: input.description,
      scope: input.scope,
      features: resolveFlags(input.features),
      plugins: input.plugins,
      active: true,
      createdAt: new Date().toISOString(),
      createdBy,
    }
    this.build(version) // a definition whose pipeline cannot be built is never stored
    await this.store.insertVersion(version)
    await this.snapshot.reload(true)
    this.log.info({ workflow: version.name, version: version.version }, 'workflow version activated')
    return { version, created: true, previous: latest }
  }

  async deactivate(id: string): Promise<boolean> {
    const current = this.active.find((a) => a.version.id === id)
    if (current?.version.name === DEFAULT_WORKFLOW_NAME) {
      throw new GatewayError({
        status: 400,
        type: 'invalid_request_error',
        code: 'default_workflow',
        message: 'The default workflow cannot be deactivated; change its features instead.',
      })
    }
    const done = await this.store.deactivate(id)
    await this.snapshot.reload(done)
    return done
  }

  select(ctx: RequestContext): BuiltPipeline {
    let best: ActiveWorkflow | undefined
    for (const candidate of this.active) {
      if (!matches(candidate.version.scope, ctx)) continue
      if (!best || candidate.specificity > best.specificity || (candidate.specificity === best.specificity && candidate.version.createdAt > best.version.createdAt))
        best = candidate
    }
    return best?.pipeline ?? this.fallback
  }

  private validatePluginSettings(input: WorkflowInput): void {
    const byId = new Map(this.instances.map(({ plugin }) => [plugin.manifest.id, plugin]))
    for (const [id, settings] of Object.entries(input.plugins)) {
      const plugin = byId.get(id)
      if (!plugin)
        throw new GatewayError({
          status: 400,
          type: 'invalid_request_error',
          param: `plugins.${id}`,
          code: 'invalid_workflow',
          message: `plugins.${id}: no such plugin (GET /admin/plugins lists them)`,
        })
      const result = plugin.manifest.config.safeParse(settings ?? {})
      if (!result.success) throw gatewayErrors.fromZod(result.error, { code: 'invalid_workflow', prefix: ['plugins', id] })
    }
  }

  private build(version: Pick<WorkflowVersion, 'id' | 'versionId' | 'features' | 'plugins'>): BuiltPipeline {
    try {
      return buildPipeline(
        { id: version.id, versionId: version.versionId, features: effectiveFeatures(version.features, this.processSwitches), plugins: version.plugins },
        this.instances,
        this.core,
      )
    } catch (error) {
      if (error instanceof PluginConfigError) throw new GatewayError({ status: 400, type: 'invalid_request_error', code: 'invalid_workflow', message: error.message })
      throw error
    }
  }
}

function builtInDefault(): Pick<WorkflowVersion, 'id' | 'versionId' | 'features' | 'plugins'> {
  return { id: 'wf_builtin_default', versionId: 'wfv_builtin_default', features: resolveFlags({}), plugins: {} }
}

/** Key beats user path (deeper beats shallower), which beats model, which beats provider. */
export function specificity(scope: WorkflowScope): number {
  let score = 0
  if (scope.key_id) score += 10_000
  if (scope.user_path) score += 1_000 + scope.user_path.split('/').filter(Boolean).length
  if (scope.model) score += 100
  if (scope.provider) score += 10
  return score
}

export function matches(scope: WorkflowScope, ctx: RequestContext): boolean {
  if (scope.key_id && ctx.principal?.keyId !== scope.key_id) return false
  if (scope.user_path && !withinSubtree(ctx.userPath, scope.user_path)) return false
  if (scope.provider && ctx.target?.providerName !== scope.provider && ctx.target?.providerType !== scope.provider) return false
  if (scope.model && ctx.requestedModel !== scope.model && ctx.target?.selector !== scope.model) return false
  return true
}

function withinSubtree(path: string | undefined, root: string): boolean {
  if (!path) return false
  const r = root.replace(/\/+$/, '')
  return r === '' || path === r || path.startsWith(`${r}/`)
}

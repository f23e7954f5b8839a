/**
 * @module What a workflow is: a named set of workflow features plus plugin settings, matched to requests by
 * scope. Every change is a new immutable version; audit entries keep the version id they ran under.
 */
import { z } from 'zod'
import { FEATURE_IDS, type FeatureId, type WorkflowFeaturesSnapshot } from '../pipeline/snapshots.ts'

const featureFlags = z.strictObject(Object.fromEntries(FEATURE_IDS.map((f) => [f, z.boolean().optional()])) as Record<FeatureId, z.ZodOptional<z.ZodBoolean>>)

export const workflowScopeSchema = z.strictObject({
  /** A managed key id. */
  key_id: z.string().min(1).optional(),
  /** A user path subtree, e.g. `/team-a`. */
  user_path: z
    .string()
    .regex(/^\/[A-Za-z0-9._\-/]*$/, 'expected a user path such as /team-a')
    .optional(),
  /** A provider name or type. */
  provider: z.string().min(1).optional(),
  /** A requested model name or a resolved `<provider>/<model>` selector. */
  model: z.string().min(1).optional(),
})
export type WorkflowScope = z.infer<typeof workflowScopeSchema>

export const workflowInputSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'expected a lower-case name (letters, digits, - and _)'),
  description: z.string().max(500).default(''),
  scope: workflowScopeSchema.default({}),
  /** Missing flags take the defaults: audit and usage on, the rest off. */
  features: featureFlags.default({}),
  /** Settings per plugin id, validated by each plugin's own schema. */
  plugins: z.record(z.string(), z.unknown()).default({}),
})
export type WorkflowInput = z.infer<typeof workflowInputSchema>

export const DEFAULT_FEATURES: WorkflowFeaturesSnapshot = { audit: true, budget: false, cache: false, failover: false, guardrails: false, usage: true }

export interface WorkflowVersion {
  /** Stable across versions, e.g. `wf_…`. */
  id: string
  /** Unique per version; recorded in audit entries. */
  versionId: string
  version: number
  name: string
  description: string
  scope: WorkflowScope
  /** The workflow's own flags (before process-wide switches). */
  features: WorkflowFeaturesSnapshot
  plugins: Record<string, unknown>
  active: boolean
  createdAt: string
  createdBy: string
}

export function resolveFlags(flags: Partial<Record<FeatureId, boolean | undefined>>): WorkflowFeaturesSnapshot {
  const out = { ...DEFAULT_FEATURES }
  for (const f of FEATURE_IDS) if (typeof flags[f] === 'boolean') out[f] = flags[f]!
  return out
}

/** The workflow's flags AND the process-wide switches; `budget` needs `usage`. */
export function effectiveFeatures(flags: WorkflowFeaturesSnapshot, processSwitches: WorkflowFeaturesSnapshot): WorkflowFeaturesSnapshot {
  const out = {} as WorkflowFeaturesSnapshot
  for (const f of FEATURE_IDS) out[f] = flags[f] && processSwitches[f]
  if (!out.usage) out.budget = false
  return out
}

/** Same definition, so re-declaring it (e.g. on restart from YAML) creates no new version. */
export function sameDefinition(a: WorkflowInput | WorkflowVersion, b: WorkflowInput): boolean {
  const canon = (w: WorkflowInput | WorkflowVersion) => JSON.stringify({ d: w.description, s: sortKeys(w.scope), f: sortKeys(resolveFlags(w.features)), p: sortKeys(w.plugins) })
  return canon(a) === canon(b)
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (typeof value !== 'object' || value === null) return value
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
  )
}

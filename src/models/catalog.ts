/**
 * @module What models the gateway offers and how a requested name resolves to a provider target. Upstream model
 * lists are fetched in the background and refreshed; requests only read the in-memory snapshot.
 */
import { PROVIDER_TYPES } from '../config/provider-catalog.ts'
import type { VirtualModel } from '../config/schema.ts'
import { GatewayError, gatewayErrors } from '../errors/gateway-error.ts'
import type { Logger } from '../log/logger.ts'
import type { ProviderRegistry } from '../providers/registry.ts'
import type { ProviderAdapter, ProviderInstance, ResolvedTarget } from '../providers/types.ts'
import { canonicalModelId, invalidModelError, modelIdProblem, modelPathProblem } from './model-id.ts'

export interface ModelEntry {
  id: string
  object: 'model'
  created: number
  owned_by: string
}

export type Resolution = { ok: true; target: ResolvedTarget; aliasUsed: boolean; alternatives: string[] } | { ok: false; error: GatewayError }

interface ProviderModels {
  ids: Set<string>
  /** Where the list came from: the upstream, or the static list after a failed fetch. */
  source: 'upstream' | 'static' | 'pending'
  fetchedAt: number
}

export class ModelCatalog {
  private readonly models = new Map<string, ProviderModels>()
  private readonly virtualModels: Map<string, VirtualModel>
  /** The selectors virtual models name (`target` and weighted `targets`), resolved. */
  private readonly virtualTargets = new Set<string>()
  private readonly startedAt = Math.floor(Date.now() / 1000)
  private timer: ReturnType<typeof setInterval> | undefined
  private firstRefresh: Promise<void> | undefined

  constructor(
    private readonly providers: ProviderRegistry,
    virtualModels: readonly VirtualModel[],
    private readonly log: Logger,
  ) {
    this.virtualModels = new Map(virtualModels.map((v) => [v.source, v]))
    for (const { instance } of providers.all()) {
      this.models.set(instance.name, { ids: new Set(instance.staticModels), source: 'pending', fetchedAt: 0 })
    }
    for (const vm of virtualModels) {
      for (const selector of [vm.target, ...(vm.targets ?? []).map((t) => t.target)]) {
        const target = this.resolveSelector(selector)
        if (target && !(target instanceof GatewayError)) this.virtualTargets.add(target.selector)
      }
    }
  }

  /** Fetches every provider's list now and again every `intervalSeconds`. */
  start(intervalSeconds: number): Promise<void> {
    this.firstRefresh = this.refreshAll()
    this.timer = setInterval(() => void this.refreshAll(), intervalSeconds * 1000)
    this.timer.unref?.()
    return this.firstRefresh
  }

  stop(): void {
    clearInterval(this.timer)
  }

  /** True once every provider's list was fetched (or fell back to its static list). */
  isReady(): boolean {
    return [...this.models.values()].every((m) => m.source !== 'pending')
  }

  async refreshAll(): Promise<void> {
    await Promise.all(this.providers.all().map(({ instance, adapter }) => this.refresh(instance.name, adapter)))
  }

  private async refresh(name: string, adapter: ProviderAdapter | undefined): Promise<void> {
    const provider = this.providers.get(name)!.instance
    const entry = this.models.get(name)!
    if (!adapter) {
      entry.source = 'static'
      return
    }
    // Expected failures come back as a GatewayError; a throw is a bug, logged as one, and the list stays as it was.
    const ids = await adapter.listModels(provider, AbortSignal.timeout(15_000)).catch((err: unknown) => {
      this.log.error({ provider: name, err }, 'listing the models failed')
      return gatewayErrors.internal()
    })
    if (ids instanceof GatewayError) {
      if (entry.source === 'pending') entry.source = 'static'
      this.log.warn({ provider: name, err: ids.message }, 'could not fetch the model list; using the static list')
      return
    }
    // A listed id no request could name (src/models/model-id.ts) is not offered.
    entry.ids = new Set([...ids.filter((id) => modelProblem(provider, id) === undefined), ...provider.staticModels])
    entry.source = 'upstream'
    entry.fetchedAt = Date.now()
  }

  list(): ModelEntry[] {
    const out: ModelEntry[] = []
    for (const [provider, m] of this.models) {
      for (const id of m.ids) out.push({ id: `${provider}/${id}`, object: 'model', created: this.startedAt, owned_by: provider })
    }
    for (const source of this.virtualModels.keys()) out.push({ id: source, object: 'model', created: this.startedAt, owned_by: 'gateway' })
    return out
  }

  /** Where each provider's model list came from: its upstream, or its static list when fetching failed. */
  listSources(): Record<string, 'pending' | 'upstream' | 'static'> {
    return Object.fromEntries([...this.models].map(([provider, m]) => [provider, m.source]))
  }

  /** Whether the provider's model list names this model (cheap; metrics labels use it to bound cardinality). */
  lists(providerName: string, model: string): boolean {
    return this.models.get(providerName)?.ids.has(model) ?? false
  }

  /**
   * Whether the operator named this target: its provider lists the model, or a virtual model points at it. State
   * kept per target (circuits) is kept only for these, so made-up model names cannot grow it.
   */
  isConfigured(target: Pick<ResolvedTarget, 'providerName' | 'model' | 'selector'>): boolean {
    return this.lists(target.providerName, target.model) || this.virtualTargets.has(target.selector)
  }

  find(id: string): ModelEntry | undefined {
    return this.list().find((m) => m.id === id)
  }

  virtualModelSources(): string[] {
    return [...this.virtualModels.keys()]
  }

  /**
   * Where a name goes. A name that cannot be a model name (src/models/model-id.ts) is refused with a 400 before
   * anything else, so no later step (model access, prices, the upstream URL) sees it.
   */
  resolve(requested: string, random: () => number = Math.random): Resolution {
    const problem = modelIdProblem(requested)
    if (problem !== undefined) return { ok: false, error: invalidModelError(requested, problem) }
    const virtual = this.virtualModels.get(requested)
    if (virtual !== undefined) {
      const [chosen, ...alternatives] = orderByWeight(virtual, random)
      const inner = this.resolveSelector(chosen!)
      if (inner instanceof GatewayError) return { ok: false, error: inner }
      return inner ? { ok: true, target: inner, aliasUsed: true, alternatives } : { ok: false, error: gatewayErrors.modelNotFound(chosen!) }
    }
    const explicit = this.resolveSelector(requested)
    if (explicit instanceof GatewayError) return { ok: false, error: explicit }
    if (explicit) return { ok: true, target: explicit, aliasUsed: false, alternatives: [] }

    const owners = [...this.models].filter(([, m]) => m.ids.has(requested)).map(([provider]) => provider)
    if (owners.length === 1) return { ok: true, target: this.target(owners[0]!, requested), aliasUsed: false, alternatives: [] }
    if (owners.length > 1) {
      return {
        ok: false,
        error: gatewayErrors.modelNotFound(requested, ` as a bare name: it is offered by ${owners.join(', ')}; use one of ${owners.map((o) => `'${o}/${requested}'`).join(', ')}`),
      }
    }
    return { ok: false, error: gatewayErrors.modelNotFound(requested) }
  }

  /**
   * `<provider>/<model>` where the first segment names a configured provider; the 400 when the model is not one
   * that provider could be asked for (a provider that carries the id in its URL path has its own rule).
   */
  private resolveSelector(selector: string): ResolvedTarget | GatewayError | undefined {
    const slash = selector.indexOf('/')
    if (slash <= 0 || slash === selector.length - 1) return undefined
    const provider = this.providers.get(selector.slice(0, slash))?.instance
    if (!provider) return undefined
    const model = selector.slice(slash + 1)
    const problem = modelProblem(provider, model)
    if (problem !== undefined) return invalidModelError(selector, problem)
    return this.target(provider.name, canonicalModelId(model, PROVIDER_TYPES[provider.type].modelPath))
  }

  private target(providerName: string, model: string): ResolvedTarget {
    const { instance } = this.providers.get(providerName)!
    return { providerName, providerType: instance.type, model, selector: `${providerName}/${model}` }
  }
}

/** Why `model` is not a model this provider could be asked for, or undefined. */
function modelProblem(provider: ProviderInstance, model: string): string | undefined {
  const rule = PROVIDER_TYPES[provider.type].modelPath
  return modelIdProblem(model) ?? (rule ? modelPathProblem(model, rule) : undefined)
}

/**
 * The virtual model's targets for one request: the first picked at random by weight, the rest by descending
 * weight, and the plain `target` last when the weighted list does not name it.
 */
export function orderByWeight(vm: VirtualModel, random: () => number): string[] {
  if (!vm.targets) return [vm.target]
  const total = vm.targets.reduce((sum, t) => sum + t.weight, 0)
  let point = random() * total
  let chosen = vm.targets[vm.targets.length - 1]!
  for (const t of vm.targets) {
    point -= t.weight
    if (point < 0) {
      chosen = t
      break
    }
  }
  const rest = vm.targets
    .filter((t) => t !== chosen)
    .sort((a, b) => b.weight - a.weight)
    .map((t) => t.target)
  const ordered = [chosen.target, ...rest]
  if (!ordered.includes(vm.target)) ordered.push(vm.target)
  return ordered
}

/**
 * Most output tokens one answer may have, per model id (a prefix matches longer ids, the longest wins): the
 * `outputLimits` of every provider type row (`plugins/providers/<id>/manifest.ts`). Clients such as Claude Code
 * ask for more (32,000 and up) than many models accept, and the upstream then refuses the whole request; the
 * parameter normaliser clamps to this instead. `model_output_limits` in the configuration overrides or extends
 * it, by `<provider>/<model>` or model id.
 */
export const DEFAULT_OUTPUT_LIMITS: Readonly<Record<string, number>> = Object.assign({}, ...Object.values(PROVIDER_TYPES).map((row) => row.outputLimits))

/** The output limit for a target, or undefined when neither the overrides nor the defaults know its model. */
export function outputLimitFor(target: Pick<ResolvedTarget, 'selector' | 'model'>, overrides: Readonly<Record<string, number>> = NO_OVERRIDES): number | undefined {
  // Asked on every request with a token clamp: answered once per (overrides table, target), then from a map.
  let known = outputLimitsSeen.get(overrides)
  if (!known) outputLimitsSeen.set(overrides, (known = new Map()))
  const id = `${target.selector}\n${target.model}`
  if (known.has(id)) return known.get(id)
  if (known.size >= OUTPUT_LIMITS_SEEN_MAX) known.clear()
  const limit = lookUpOutputLimit(target, overrides)
  known.set(id, limit)
  return limit
}

const NO_OVERRIDES: Readonly<Record<string, number>> = {}
/** Bounded: model names come from clients. */
const OUTPUT_LIMITS_SEEN_MAX = 4096
const outputLimitsSeen = new WeakMap<Readonly<Record<string, number>>, Map<string, number | undefined>>()

function lookUpOutputLimit(target: Pick<ResolvedTarget, 'selector' | 'model'>, overrides: Readonly<Record<string, number>>): number | undefined {
  for (const table of [overrides, DEFAULT_OUTPUT_LIMITS]) {
    const exact = table[target.selector] ?? table[target.model]
    if (exact !== undefined) return exact
    let best: string | undefined
    for (const key of Object.keys(table)) {
      if ((target.model.startsWith(key) || target.selector.startsWith(key)) && key.length > (best?.length ?? 0)) best = key
    }
    if (best !== undefined) return table[best]
  }
  return undefined
}

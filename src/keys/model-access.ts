import type { ResolvedTarget } from '../providers/types.ts'

/**
 * @module Which models a managed key may use. An entry is an exact name (a `<provider>/<model>` selector or a
 * virtual model source) or a pattern ending in `*` that matches by prefix (`openai/*`, `gpt-4o*`, `*`).
 */

export const MAX_ALLOWED_MODEL_LENGTH = 200

/** Why an entry is not a valid allowed-models entry, or undefined when it is. */
export function allowedModelProblem(entry: string): string | undefined {
  if (entry.length === 0) return 'an entry is empty'
  if (entry.length > MAX_ALLOWED_MODEL_LENGTH) return `an entry is longer than ${MAX_ALLOWED_MODEL_LENGTH} characters`
  if (/[\s\p{Cc}]/u.test(entry)) return `'${entry}' contains whitespace or control characters`
  if (entry.indexOf('*') !== -1 && entry.indexOf('*') !== entry.length - 1) return `'${entry}': '*' is allowed only at the end`
  return undefined
}

export function matchesAllowedModel(entry: string, name: string): boolean {
  return entry.endsWith('*') ? name.startsWith(entry.slice(0, -1)) : entry === name
}

/**
 * True when any of the names (the requested model, the resolved target selector) matches an entry.
 * `allowed` undefined or null means the key is unrestricted.
 *
 * @example isModelAllowed(['openai/*'], ['fast', 'openai/gpt-4o-mini']) // true
 */
export function isModelAllowed(allowed: readonly string[] | null | undefined, names: readonly (string | undefined)[]): boolean {
  if (!allowed) return true
  return names.some((name) => name !== undefined && allowed.some((entry) => matchesAllowedModel(entry, name)))
}

/**
 * Whether a key may be answered by `target`, reached through the name `via` (the name the client asked for, or a
 * failover target as the configuration names it): one of the two matches an entry. The one check for every target
 * that may answer: the model-access plugin asks it for the resolved target, failover for each fallback, so a
 * failing primary (which a client can cause) never opens a model the key may not use.
 *
 * @example mayUseTarget(['down/cheap'], 'down/cheap', openaiGpt4o) // false: the fallback is another model
 */
export function mayUseTarget(allowed: readonly string[] | null | undefined, via: string | undefined, target: Pick<ResolvedTarget, 'selector'> | undefined): boolean {
  return isModelAllowed(allowed, [via, target?.selector])
}

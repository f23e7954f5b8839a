/**
 * @module What a model name may look like: the one check every requested name and configured selector passes
 * before it is resolved, priced or put into an upstream URL. Some providers address the model in the URL path
 * (Gemini's `models/{id}:generateContent`, Azure's `deployments/{id}/…`), where a `..` segment, `%2f`, `?` or `#`
 * would reach another model or another API with the gateway's credential while model access and prices saw the
 * name as written. So a name is `/`-separated segments of letters, digits and `. _ ~ : @ + -`, none empty or made
 * of dots only. That admits the ids providers use: `meta-llama/Llama-3.3-70B-Instruct`,
 * `accounts/fireworks/models/x`, `gemini-2.0-flash-001`, `claude-3-5-sonnet@20240620`, `llama3.1:8b`,
 * `ft:gpt-4o-mini:org::id`, `@cf/meta/llama-3-8b-instruct`, Azure deployment names.
 */
import { type GatewayError, gatewayErrors } from '../errors/gateway-error.ts'
import type { ModelPathRule } from '../providers/manifest.ts'

export const MAX_MODEL_ID_LENGTH = 256

const SEGMENT = /^[A-Za-z0-9._~:@+-]+$/
const DOTS_ONLY = /^\.+$/
const NOT_ALLOWED = /[^A-Za-z0-9._~:@+-]/u

/**
 * Why `name` cannot be a model name (a sentence fragment for the error message), or undefined when it can.
 *
 * @example modelIdProblem('gem/gemini-2.0-flash/../x') // "it has a '..' path segment"
 */
export function modelIdProblem(name: string): string | undefined {
  if (name.length === 0) return 'it is empty'
  if (name.length > MAX_MODEL_ID_LENGTH) return `it is longer than ${MAX_MODEL_ID_LENGTH} characters`
  for (const segment of name.split('/')) {
    if (segment === '') return "it has an empty path segment (a '/' at either end or '//')"
    if (DOTS_ONLY.test(segment)) return `it has a '${segment}' path segment`
    if (!SEGMENT.test(segment)) return `${describeCharacter(NOT_ALLOWED.exec(segment)![0])} is not allowed (letters, digits and . _ ~ : @ + - between slashes)`
  }
  return undefined
}

/**
 * For a provider that carries the model in its URL path: why `model` (the part after `<provider>/`) is not one of
 * its model ids, or undefined. An id is one segment, or `<collection>/<id>` for one of the rule's collections.
 */
export function modelPathProblem(model: string, rule: ModelPathRule): string | undefined {
  const slash = model.indexOf('/')
  if (slash === -1) return undefined
  const collection = model.slice(0, slash)
  if (rule.collections.includes(collection) && model.indexOf('/', slash + 1) === -1) return undefined
  return rule.collections.length === 0
    ? 'this provider takes a model id without slashes'
    : `this provider takes a model id without slashes, or ${rule.collections.map((c) => `'${c}/<id>'`).join(' or ')}`
}

/** The id as the provider's own list names it: the default collection's prefix dropped (`models/x` is `x`). */
export function canonicalModelId(model: string, rule: ModelPathRule | undefined): string {
  const home = rule?.collections[0]
  return home !== undefined && model.startsWith(`${home}/`) ? model.slice(home.length + 1) : model
}

/** The 400 for a name that cannot be a model name (`param: model`, code `invalid_model`). */
export function invalidModelError(name: string, problem: string): GatewayError {
  const shown = name.length > 120 ? `${name.slice(0, 120)}…` : name
  return gatewayErrors.invalidRequest(`The model '${shown}' is not a valid model name: ${problem}.`, 'model', 'invalid_model')
}

function describeCharacter(char: string): string {
  const code = char.codePointAt(0)!
  if (code < 0x20 || code === 0x7f) return `the control character U+${code.toString(16).toUpperCase().padStart(4, '0')}`
  return `'${char}'`
}

/**
 * @module What a provider folder declares about itself (`plugins/providers/<id>/manifest.ts`): the provider types
 * it serves, each one row of the provider catalogue with its parameter rules, bundled prices and output limits.
 * The catalogue (src/config/provider-catalog.ts), the default prices (src/usage/default-prices.ts), the output
 * limits (src/models/catalog.ts) and the parameter normaliser's rules are all derived from these rows, so adding
 * a provider touches its folder and the two registries only.
 */
import type { ModelPrice } from '../usage/pricing.ts'

/**
 * How the parameter normaliser adapts a chat request for a provider type:
 * - `openai`: OpenAI's own API (reasoning models take `max_completion_tokens` and only default sampling);
 * - `translated`: the adapter translates the request into another API, nothing to adapt here;
 * - `compatible`: an OpenAI-compatible API that knows `max_tokens` but not `max_completion_tokens`, and rejects
 *   OpenAI-only fields except those in `acceptsOpenAIOnly`.
 */
export type ParameterRules = { style: 'openai' } | { style: 'translated' } | { style: 'compatible'; acceptsOpenAIOnly: readonly string[] }

/**
 * How a provider whose API carries the model in the URL path (Gemini's `models/{id}:generateContent`, Azure's
 * `deployments/{id}/…`) names a model: one path segment, or `<collection>/<id>` for one of `collections`. The
 * first collection is where a bare id lives, so `models/gemini-2.0-flash` resolves to `gemini-2.0-flash`: model
 * access, prices and the upstream see one name (src/models/model-id.ts).
 */
export interface ModelPathRule {
  collections: readonly string[]
}

/**
 * How a cloud provider signs in without (or besides) an API key: `aws` signs every request with SigV4 from the AWS
 * credential chain; `google` sends a bearer token from Application Default Credentials; `entra` accepts a
 * Microsoft Entra ID token as an alternative to the API key (src/credentials/).
 */
export type CloudCredentials = 'aws' | 'google' | 'entra'

/**
 * One path of a provider's own API that the governed pass-through (`/p/{provider}/…`) forwards. `path` is
 * relative to the provider's base URL, `/`-separated, with placeholders that match one segment (or the part of a
 * segment before a `:`): `{model}` (the model, when it is in the path), `{project}` and `{location}` (which must be
 * the instance's own). Paths not listed are refused: pass-through is deny-by-default.
 */
export interface PassthroughPath {
  method: 'GET' | 'POST'
  path: string
  /** Where the request names its model: in the path (`{model}`), or as `model` in a JSON body. */
  model: 'path' | 'body'
}

/** What the pass-through forwards for a provider type: its API's root as its clients address it, and the allowed paths. */
export interface PassthroughRules {
  /** The path the provider's SDKs put before these paths (`/v1` for `https://api.anthropic.com/v1/messages`); the base URL stands for it. */
  root: string
  paths: readonly PassthroughPath[]
}

/** One provider type: how it is configured, where its API lives, and what the gateway knows of its models. */
export interface ProviderTypeRow {
  /** Environment prefix: `<PREFIX>_API_KEY`, `<PREFIX>_BASE_URL`, `<PREFIX>_MODELS`. */
  envPrefix: string
  defaultBaseUrl?: string
  /** Local servers: configured by a base URL alone, the key is optional. */
  keyOptional?: boolean
  /** A cloud's own credentials (the API key, where there is one, becomes optional for `aws` and `google`). */
  credentials?: CloudCredentials
  /**
   * The API's URL in a region (Bedrock) or location (Vertex AI) when no base URL is configured; the instance's
   * `region` (`location`) comes from its settings or the cloud's standard variables.
   */
  regionalBaseUrl?: (region: string) => string
  /** `aws` credentials: the service name requests are signed for (SigV4's credential scope). */
  awsSigningName?: string
  /** Speaks `/v1/responses` natively, so the gateway forwards it untouched. */
  nativeResponses?: boolean
  /** Reads `<PREFIX>_API_VERSION` into `api_version` (Azure's `api-version` query parameter). */
  apiVersion?: boolean
  parameters: ParameterRules
  /** Set when the API carries the model id in the URL path; without it the id travels in the body. */
  modelPath?: ModelPathRule
  /**
   * Bundled list prices in USD per million tokens by model id (a prefix matches longer ids), from the provider's
   * public pricing page; empty where the models are the operator's own. Overridable in YAML and the admin API.
   */
  prices: Readonly<Record<string, ModelPrice>>
  /**
   * The provider's batch API price as a fraction of its list price (0.5 for a 50 % batch discount), from its pricing
   * page; becomes the `batch_multiplier` of every bundled price of the row that states none.
   */
  batchPriceMultiplier?: number
  /** Most output tokens one answer may have, by model id (a prefix matches longer ids), from the model pages. */
  outputLimits: Readonly<Record<string, number>>
  /** The inference paths the governed pass-through forwards; none when absent. */
  passthrough?: PassthroughRules
}

export interface ProviderManifest<Types extends string = string> {
  /** The folder's name, and the id of the adapter in its `adapter.ts`. */
  id: string
  summary: string
  /** The provider types this folder's adapter speaks to, by the name used in `providers.<name>.type`. */
  types: Readonly<Record<Types, ProviderTypeRow>>
}

/** Keeps the type names as literals, so `ProviderType` is a union the compiler checks. */
export function defineProvider<const Types extends string>(manifest: ProviderManifest<Types>): ProviderManifest<Types> {
  return manifest
}

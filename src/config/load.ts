/**
 * @module Builds the validated GatewayConfig: the YAML file (GATEWAY_CONFIG, else ./gateway.yaml when present),
 * then environment variables on top. A bad value stops start-up with a message naming the field, where it came
 * from and what was expected.
 */
import { existsSync, readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import type { z } from 'zod'
import { applyCloudDefaults, cloudProviderFromEnvironment, cloudSettingsProblems, providerBaseUrl } from './cloud-environment.ts'
import { expandVariables } from './expand-variables.ts'
import { PROVIDER_TYPES, PROVIDER_TYPE_NAMES, type ProviderType } from './provider-catalog.ts'
import { gatewayConfigSchema, type GatewayConfig } from './schema.ts'

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`)
    this.name = 'ConfigError'
  }
}

type Env = Record<string, string | undefined>

/** Plain settings: environment variable → path in the config object. */
export const ENV_SETTINGS: Record<string, string[]> = {
  HOST: ['server', 'host'],
  PORT: ['server', 'port'],
  GATEWAY_MAX_BODY_BYTES: ['server', 'max_body_bytes'],
  GATEWAY_MAX_UPLOAD_BYTES: ['server', 'max_upload_bytes'],
  GATEWAY_IDLE_TIMEOUT_SECONDS: ['server', 'idle_timeout_seconds'],
  GATEWAY_BODY_TIMEOUT_SECONDS: ['server', 'body_timeout_seconds'],
  GATEWAY_DRAIN_TIMEOUT_SECONDS: ['server', 'drain_timeout_seconds'],
  GATEWAY_MASTER_KEY: ['master_key'],
  GATEWAY_ALLOW_OPEN: ['auth', 'allow_open'],
  GATEWAY_REQUIRE_KEY_USER_PATH: ['auth', 'require_key_user_path'],
  GATEWAY_AUTH_FAILURE_BURST: ['auth', 'failure_burst'],
  GATEWAY_AUTH_FAILURE_REFILL_PER_SECOND: ['auth', 'failure_refill_per_second'],
  OIDC_ISSUER: ['auth', 'oidc', 'issuer'],
  OIDC_CLIENT_ID: ['auth', 'oidc', 'client_id'],
  OIDC_CLIENT_SECRET: ['auth', 'oidc', 'client_secret'],
  OIDC_SESSION_SECRET: ['auth', 'oidc', 'session_secret'],
  OIDC_REDIRECT_URI: ['auth', 'oidc', 'redirect_uri'],
  OIDC_COOKIE_SECURE: ['auth', 'oidc', 'cookie_secure'],
  GATEWAY_DB_PATH: ['database', 'path'],
  DATABASE_URL: ['database', 'url'],
  DATABASE_POOL_SIZE: ['database', 'pool_size'],
  DATABASE_TLS: ['database', 'tls'],
  DATABASE_TLS_CA_FILE: ['database', 'tls_ca_file'],
  UPSTREAM_TTFB_TIMEOUT_MS: ['upstream', 'ttfb_timeout_ms'],
  UPSTREAM_IDLE_TIMEOUT_MS: ['upstream', 'idle_timeout_ms'],
  UPSTREAM_MAX_RESPONSE_BYTES: ['upstream', 'max_response_bytes'],
  MODELS_REFRESH_SECONDS: ['upstream', 'models_refresh_seconds'],
  SSE_KEEPALIVE_SECONDS: ['upstream', 'keepalive_seconds'],
  LOG_LEVEL: ['logging', 'level'],
  LOGGING_LOG_BODIES: ['logging', 'log_bodies'],
  LOGGING_LOG_HEADERS: ['logging', 'log_headers'],
  LOGGING_RETENTION_DAYS: ['logging', 'retention_days'],
  LOGGING_AUDIT_QUEUE_SIZE: ['logging', 'audit_queue_size'],
  LOGGING_AUDIT_QUEUE_MAX_BYTES: ['logging', 'audit_queue_max_bytes'],
  LOGGING_AUDIT_BATCH_SIZE: ['logging', 'audit_batch_size'],
  LOGGING_AUDIT_FLUSH_INTERVAL_MS: ['logging', 'audit_flush_interval_ms'],
  LOGGING_AUDIT_SPILL_DIR: ['logging', 'audit_spill_dir'],
  LOGGING_AUDIT_MEMORY_MAX_BYTES: ['logging', 'audit_memory_max_bytes'],
  LOGGING_USAGE_QUEUE_SIZE: ['logging', 'usage_queue_size'],
  LOG_FORMAT: ['logging', 'format'],
  LOGGING_ACCESS_LOG: ['logging', 'access_log'],
  METRICS_ENABLED: ['metrics', 'enabled'],
  METRICS_PUBLIC: ['metrics', 'public'],
  GATEWAY_OVERHEAD_HEADER: ['metrics', 'overhead_header'],
  CACHE_MAX_BYTES: ['cache', 'max_bytes'],
  RESPONSES_THREAD_RETENTION_DAYS: ['responses', 'thread_retention_days'],
  FILES_STORE: ['files', 'store'],
  FILES_DIRECTORY: ['files', 'directory'],
  FILES_MAX_FILE_BYTES: ['files', 'max_file_bytes'],
  FILES_UPLOAD_TIMEOUT_SECONDS: ['files', 'upload_timeout_seconds'],
  FILES_S3_BUCKET: ['files', 's3', 'bucket'],
  FILES_S3_ENDPOINT: ['files', 's3', 'endpoint'],
  FILES_S3_REGION: ['files', 's3', 'region'],
  FILES_S3_ACCESS_KEY_ID: ['files', 's3', 'access_key_id'],
  FILES_S3_SECRET_ACCESS_KEY: ['files', 's3', 'secret_access_key'],
  FILES_S3_SESSION_TOKEN: ['files', 's3', 'session_token'],
  FILES_S3_PREFIX: ['files', 's3', 'prefix'],
  BATCHES_CONCURRENCY: ['batches', 'concurrency'],
  BATCHES_POLL_SECONDS: ['batches', 'poll_seconds'],
  BATCHES_MAX_LINES: ['batches', 'max_lines'],
  BATCHES_GATEWAY_RUN_ALL: ['batches', 'gateway_run_all'],
  REDIS_URL: ['redis', 'url'],
  MCP_TOKEN_ENCRYPTION_KEY: ['mcp', 'token_encryption_key'],
  FEATURE_AUDIT: ['features', 'audit'],
  FEATURE_BUDGET: ['features', 'budget'],
  FEATURE_CACHE: ['features', 'cache'],
  FEATURE_FAILOVER: ['features', 'failover'],
  FEATURE_GUARDRAILS: ['features', 'guardrails'],
  FEATURE_USAGE: ['features', 'usage'],
}

export interface LoadConfigOptions {
  env?: Env
  cwd?: string
}

export function loadConfig({ env = process.env, cwd = process.cwd() }: LoadConfigOptions = {}): GatewayConfig {
  const origins = new Map<string, string>()
  const raw = readYamlFile(env, cwd, origins)
  applyEnvironment(raw, env, origins)

  const parsed = gatewayConfigSchema.safeParse(raw)
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((i) => describeIssue(i, origins)))
  const problems = crossCheck(parsed.data)
  if (problems.length > 0) throw new ConfigError(problems)
  return parsed.data
}

function readYamlFile(env: Env, cwd: string, origins: Map<string, string>): Record<string, unknown> {
  const explicit = env.GATEWAY_CONFIG || undefined // empty means unset, as for the other variables
  const path = resolve(cwd, explicit ?? 'gateway.yaml')
  if (!existsSync(path)) {
    if (explicit) throw new ConfigError([`GATEWAY_CONFIG: file not found: ${path}`])
    return {}
  }
  let doc: unknown
  try {
    // The YAML parser is loaded only when there is a file to parse (about 2 MiB resident otherwise spent for nothing).
    doc = (require('yaml') as typeof import('yaml')).parse(readFileSync(path, 'utf8'))
  } catch (error) {
    throw new ConfigError([`${path}: not valid YAML: ${(error as Error).message}`])
  }
  if (doc == null) return {}
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new ConfigError([`${path}: expected a mapping at the top`])
  origins.set('', path)
  // After parsing, never before: a variable's content must not be read as YAML.
  const expanded = expandVariables(doc, env)
  if (expanded.problems.length > 0) throw new ConfigError(expanded.problems.map((p) => `${p} (in ${path})`))
  for (const [field, names] of expanded.sources) origins.set(field, `${path} via ${names.map((n) => `\${${n}}`).join(', ')}`)
  return expanded.value as Record<string, unknown>
}

function applyEnvironment(raw: Record<string, unknown>, env: Env, origins: Map<string, string>): void {
  for (const [name, path] of Object.entries(ENV_SETTINGS)) {
    const value = env[name]
    if (value === undefined || value === '') continue
    setPath(raw, path, value)
    origins.set(path.join('.'), `env ${name}`)
  }

  if (env.VIRTUAL_MODELS) {
    try {
      raw.virtual_models = JSON.parse(env.VIRTUAL_MODELS)
      origins.set('virtual_models', 'env VIRTUAL_MODELS')
    } catch (error) {
      throw new ConfigError([`VIRTUAL_MODELS: expected a JSON array of {"source","target"}: ${(error as Error).message}`])
    }
  }

  applyJwtIssuerEnvironment(raw, env, origins)
  for (const type of PROVIDER_TYPE_NAMES) applyProviderEnvironment(raw, type, env, origins)
  if (typeof raw.providers === 'object' && raw.providers !== null) applyCloudDefaults(raw.providers as Record<string, Record<string, unknown>>, env, origins)
}

/** GATEWAY_JWT_ISSUER and GATEWAY_JWT_AUDIENCE (comma-separated) add one issuer to YAML's `auth.jwt.issuers`. */
function applyJwtIssuerEnvironment(raw: Record<string, unknown>, env: Env, origins: Map<string, string>) {
  const issuer = env.GATEWAY_JWT_ISSUER || undefined
  const audience = env.GATEWAY_JWT_AUDIENCE || undefined
  if (!issuer && !audience) return
  if (!issuer || !audience) throw new ConfigError(['GATEWAY_JWT_ISSUER and GATEWAY_JWT_AUDIENCE go together: set both, or neither'])
  const auth = (raw.auth ??= {}) as Record<string, unknown>
  const jwt = (auth.jwt ??= {}) as Record<string, unknown>
  const issuers = (jwt.issuers ??= []) as unknown[]
  if (!Array.isArray(issuers)) return
  issuers.push({
    issuer,
    audience: audience
      .split(',')
      .map((a) => a.trim())
      .filter(Boolean),
  })
  origins.set(`auth.jwt.issuers.${issuers.length - 1}`, 'env GATEWAY_JWT_ISSUER, GATEWAY_JWT_AUDIENCE')
}

function applyProviderEnvironment(raw: Record<string, unknown>, type: ProviderType, env: Env, origins: Map<string, string>) {
  const info = PROVIDER_TYPES[type]
  const p = info.envPrefix
  const apiKey = env[`${p}_API_KEY`] || undefined
  const baseUrl = env[`${p}_BASE_URL`] || undefined
  const models = env[`${p}_MODELS`] || undefined
  const apiVersion = info.apiVersion ? env[`${p}_API_VERSION`] || undefined : undefined
  if (!apiKey && !(info.keyOptional && baseUrl) && !cloudProviderFromEnvironment(info, env)) return

  const providers = (raw.providers ??= {}) as Record<string, Record<string, unknown>>
  const entry = (providers[type] ??= { type })
  const set = (field: string, value: unknown, envName: string) => {
    entry[field] = value
    origins.set(`providers.${type}.${field}`, `env ${envName}`)
  }
  if (apiKey) set('api_key', apiKey, `${p}_API_KEY`)
  if (baseUrl) set('base_url', baseUrl, `${p}_BASE_URL`)
  if (models)
    set(
      'models',
      models
        .split(',')
        .map((m) => m.trim())
        .filter(Boolean),
      `${p}_MODELS`,
    )
  if (apiVersion) set('api_version', apiVersion, `${p}_API_VERSION`)
}

function setPath(target: Record<string, unknown>, path: string[], value: unknown): void {
  let node = target
  for (const key of path.slice(0, -1)) {
    const next = node[key]
    node = (typeof next === 'object' && next !== null ? next : (node[key] = {})) as Record<string, unknown>
  }
  node[path.at(-1)!] = value
}

function describeIssue(issue: z.core.$ZodIssue, origins: Map<string, string>): string {
  const field = issue.path.map(String).join('.') || '(top level)'
  let origin = ''
  for (let i = issue.path.length; i > 0 && !origin; i--) {
    origin = origins.get(issue.path.slice(0, i).map(String).join('.')) ?? ''
  }
  origin ||= origins.get('') ?? ''
  return `${field}${origin ? ` (from ${origin})` : ''}: ${issue.message}`
}

function crossCheck(config: GatewayConfig): string[] {
  const problems: string[] = []
  if (config.files.store === 's3' && !config.files.s3) problems.push("files.s3.bucket: required when files.store is 's3' (FILES_S3_BUCKET)")
  for (const [name, provider] of Object.entries(config.providers)) {
    const info = PROVIDER_TYPES[provider.type as ProviderType]
    const cloudProblems = cloudSettingsProblems(name, info, provider)
    problems.push(...cloudProblems)
    if (!providerBaseUrl(info, provider) && cloudProblems.length === 0) problems.push(`providers.${name}.base_url: required for provider type '${provider.type}'`)
    const signsInOtherwise = info.credentials === 'aws' || info.credentials === 'google' || (info.credentials === 'entra' && provider.entra !== undefined)
    if (!provider.api_key && !info.keyOptional && !signsInOtherwise) problems.push(`providers.${name}.api_key: required for provider type '${provider.type}'`)
  }
  const sources = new Set<string>()
  config.virtual_models.forEach((vm, i) => {
    if (sources.has(vm.source)) problems.push(`virtual_models[${i}].source: '${vm.source}' is declared twice`)
    sources.add(vm.source)
    const check = (selector: string, field: string) => {
      const slash = selector.indexOf('/')
      const providerName = slash > 0 ? selector.slice(0, slash) : ''
      if (!providerName || !config.providers[providerName]) {
        problems.push(`virtual_models[${i}].${field}: expected '<provider>/<model>' naming a configured provider, got '${selector}'`)
      }
    }
    check(vm.target, 'target')
    vm.targets?.forEach((t, j) => check(t.target, `targets[${j}].target`))
  })
  return problems
}

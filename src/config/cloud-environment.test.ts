/**
 * Bedrock, Vertex AI and Azure with Entra ID configured the way users of these clouds expect: from `<PREFIX>_MODELS`
 * / `<PREFIX>_BASE_URL` and the clouds' standard variables, or as YAML instances with the same fields.
 */
import { describe, expect, test } from 'bun:test'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ProviderRegistry } from '../providers/registry.ts'
import { ConfigError, loadConfig } from './load.ts'

const emptyDir = () => mkdtempSync(join(tmpdir(), 'gw-cloud-config-'))

function problemsOf(env: Record<string, string>, cwd = emptyDir()): string[] {
  try {
    loadConfig({ env, cwd })
  } catch (error) {
    if (error instanceof ConfigError) return error.problems
    throw error
  }
  return []
}

function withYaml(yaml: string): string {
  const dir = emptyDir()
  writeFileSync(join(dir, 'gateway.yaml'), yaml)
  return dir
}

describe('Bedrock', () => {
  test('BEDROCK_MODELS makes the `bedrock` provider in AWS_REGION, its URL the regional runtime endpoint', () => {
    const config = loadConfig({ env: { BEDROCK_MODELS: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0,amazon.nova-pro-v1:0', AWS_REGION: 'eu-central-1' }, cwd: emptyDir() })
    expect(config.providers.bedrock).toMatchObject({ type: 'bedrock', region: 'eu-central-1', models: ['us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'amazon.nova-pro-v1:0'] })
    expect(config.providers.bedrock!.aws).toBeUndefined()
    const registry = new ProviderRegistry(config, {})
    expect(registry.get('bedrock')!.instance).toMatchObject({ baseUrl: 'https://bedrock-runtime.eu-central-1.amazonaws.com', region: 'eu-central-1' })
    expect(registry.get('bedrock')!.instance.auth?.kind).toBe('sigv4')
  })

  test('AWS_DEFAULT_REGION too; static keys in the environment are the instance keys and scrubbed secrets; BEDROCK_BASE_URL a private endpoint', () => {
    const config = loadConfig({
      env: {
        BEDROCK_BASE_URL: 'https://vpce-1.bedrock-runtime.us-west-2.vpce.amazonaws.com',
        AWS_DEFAULT_REGION: 'us-west-2',
        AWS_ACCESS_KEY_ID: 'AKIAENV',
        AWS_SECRET_ACCESS_KEY: 'env-secret-key',
      },
      cwd: emptyDir(),
    })
    expect(config.providers.bedrock).toMatchObject({ region: 'us-west-2', aws: { access_key_id: 'AKIAENV', secret_access_key: 'env-secret-key' } })
    const registry = new ProviderRegistry(config, {})
    expect(registry.get('bedrock')!.instance.baseUrl).toBe('https://vpce-1.bedrock-runtime.us-west-2.vpce.amazonaws.com')
    expect(registry.secrets()).toContain('env-secret-key')
  })

  test('with AWS_PROFILE the keys are left to the chain (the profile wins, as in the SDK)', () => {
    const config = loadConfig({
      env: { BEDROCK_MODELS: 'm', AWS_REGION: 'us-east-1', AWS_PROFILE: 'prod', AWS_ACCESS_KEY_ID: 'AKIA', AWS_SECRET_ACCESS_KEY: 's' },
      cwd: emptyDir(),
    })
    expect(config.providers.bedrock!.aws).toBeUndefined()
  })

  test('a region is required; AWS variables alone do not make a provider', () => {
    expect(problemsOf({ BEDROCK_MODELS: 'm' })).toEqual(["providers.bedrock.region: required for provider type 'bedrock' (or set AWS_REGION)"])
    expect(loadConfig({ env: { AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'AKIA', AWS_SECRET_ACCESS_KEY: 's' }, cwd: emptyDir() }).providers).toEqual({})
  })

  test('YAML instances: several regions and accounts, profiles, a role with a token file; halves of a pair refused', () => {
    const cwd = withYaml(`
providers:
  bedrock-eu:
    type: bedrock
    region: eu-west-3
    models: [eu.anthropic.claude-sonnet-4-5-20250929-v1:0]
    aws: { profile: prod }
  bedrock-us:
    type: bedrock
    region: us-east-1
    aws: { role_arn: arn:aws:iam::123456789012:role/gw, web_identity_token_file: /var/run/token }
`)
    const config = loadConfig({ env: {}, cwd })
    expect(config.providers['bedrock-eu']).toMatchObject({ region: 'eu-west-3', aws: { profile: 'prod' } })
    expect(config.providers['bedrock-us']!.aws).toEqual({ role_arn: 'arn:aws:iam::123456789012:role/gw', web_identity_token_file: '/var/run/token' })
    expect(problemsOf({}, withYaml('providers:\n  b:\n    type: bedrock\n    region: us-east-1\n    aws: { access_key_id: AKIA }\n'))).toEqual([
      'providers.b.aws: access_key_id and secret_access_key go together',
    ])
    expect(problemsOf({}, withYaml('providers:\n  b:\n    type: bedrock\n    region: "us-east-1.evil.com/"\n'))[0]).toContain('region')
  })
})

describe('Vertex AI', () => {
  test('VERTEX_PROJECT makes the `vertex` provider in VERTEX_LOCATION (default us-central1); the global location has its own host', () => {
    const config = loadConfig({ env: { VERTEX_PROJECT: 'acme-prod', VERTEX_MODELS: 'gemini-2.5-pro,claude-sonnet-4-5@20250929' }, cwd: emptyDir() })
    expect(config.providers.vertex).toMatchObject({ type: 'vertex', project: 'acme-prod', location: 'us-central1' })
    const registry = new ProviderRegistry(config, {})
    expect(registry.get('vertex')!.instance.baseUrl).toBe('https://us-central1-aiplatform.googleapis.com/v1')
    expect(registry.get('vertex')!.instance.auth?.kind).toBe('bearer')
    const global = loadConfig({ env: { VERTEX_PROJECT: 'acme-prod', VERTEX_LOCATION: 'global' }, cwd: emptyDir() })
    expect(new ProviderRegistry(global, {}).get('vertex')!.instance.baseUrl).toBe('https://aiplatform.googleapis.com/v1')
  })

  test('GOOGLE_APPLICATION_CREDENTIALS is the key file; a project is required', () => {
    const config = loadConfig({ env: { VERTEX_MODELS: 'gemini-2.5-flash', GOOGLE_CLOUD_PROJECT: 'acme-dev', GOOGLE_APPLICATION_CREDENTIALS: '/secrets/sa.json' }, cwd: emptyDir() })
    expect(config.providers.vertex).toMatchObject({ project: 'acme-dev', google: { credentials_file: '/secrets/sa.json' } })
    expect(problemsOf({ VERTEX_MODELS: 'gemini-2.5-flash' })).toEqual(["providers.vertex.project: required for provider type 'vertex' (or set VERTEX_PROJECT)"])
  })

  test('fields of another cloud are refused', () => {
    expect(problemsOf({}, withYaml('providers:\n  v:\n    type: vertex\n    project: acme-prod\n    region: us-east-1\n'))).toEqual([
      "providers.v.region: only for provider types with aws credentials (type 'vertex')",
    ])
    expect(problemsOf({}, withYaml('providers:\n  o:\n    type: openai\n    api_key: sk-x\n    project: acme-prod\n'))).toEqual([
      "providers.o.project: only for provider types with google credentials (type 'openai')",
    ])
  })
})

describe('Azure with Entra ID', () => {
  test('AZURE_TENANT_ID, AZURE_CLIENT_ID and a secret or federated token file instead of AZURE_API_KEY', () => {
    const config = loadConfig({
      env: {
        AZURE_BASE_URL: 'https://res.openai.azure.com/openai',
        AZURE_TENANT_ID: 't',
        AZURE_CLIENT_ID: 'c',
        AZURE_FEDERATED_TOKEN_FILE: '/var/run/azure/token',
        AZURE_MODELS: 'gpt-4o',
      },
      cwd: emptyDir(),
    })
    expect(config.providers.azure).toMatchObject({ type: 'azure', entra: { tenant_id: 't', client_id: 'c', federated_token_file: '/var/run/azure/token' } })
    expect(new ProviderRegistry(config, {}).get('azure')!.instance.auth?.kind).toBe('bearer')
  })

  test('an API key wins over Entra variables; neither is an error; an entra block needs a secret or a token file', () => {
    const keyed = loadConfig({
      env: { AZURE_API_KEY: 'az', AZURE_BASE_URL: 'https://res.openai.azure.com/openai', AZURE_TENANT_ID: 't', AZURE_CLIENT_ID: 'c', AZURE_CLIENT_SECRET: 's' },
      cwd: emptyDir(),
    })
    expect(keyed.providers.azure!.entra).toBeUndefined()
    expect(new ProviderRegistry(keyed, {}).get('azure')!.instance.auth).toBeUndefined()
    expect(problemsOf({}, withYaml('providers:\n  az:\n    type: azure\n    base_url: https://r.openai.azure.com/openai\n'))).toEqual([
      "providers.az.api_key: required for provider type 'azure'",
    ])
    expect(problemsOf({}, withYaml('providers:\n  az:\n    type: azure\n    base_url: https://r.openai.azure.com/openai\n    entra: { tenant_id: t, client_id: c }\n'))).toEqual([
      'providers.az.entra: needs client_secret or federated_token_file',
    ])
  })

  test('the client secret of a YAML entra block is a scrubbed secret', () => {
    const config = loadConfig({
      env: {},
      cwd: withYaml(
        'providers:\n  az:\n    type: azure\n    base_url: https://r.openai.azure.com/openai\n    entra: { tenant_id: t, client_id: c, client_secret: "Q~yaml-secret" }\n',
      ),
    })
    expect(new ProviderRegistry(config, {}).secrets()).toContain('Q~yaml-secret')
  })
})

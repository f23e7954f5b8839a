import { describe, expect, test } from 'bun:test'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ConfigError, loadConfig } from './load.ts'

const emptyDir = () => mkdtempSync(join(tmpdir(), 'gw-config-'))

function problemsOf(env: Record<string, string>, cwd = emptyDir()): string[] {
  try {
    loadConfig({ env, cwd })
  } catch (error) {
    if (error instanceof ConfigError) return error.problems
    throw error
  }
  return []
}

describe('loadConfig', () => {
  test('GATEWAY_JWT_ISSUER and GATEWAY_JWT_AUDIENCE add an issuer after the YAML ones; one without the other is refused', () => {
    const dir = emptyDir()
    writeFileSync(join(dir, 'gateway.yaml'), 'auth:\n  jwt:\n    issuers:\n      - { issuer: "https://ci.example", audience: gw }\n')
    const config = loadConfig({ env: { GATEWAY_JWT_ISSUER: 'https://idp.example/realms/a', GATEWAY_JWT_AUDIENCE: 'gw, other' }, cwd: dir })
    expect(config.auth.jwt.issuers.map((i) => [i.issuer, i.audience])).toEqual([
      ['https://ci.example', ['gw']],
      ['https://idp.example/realms/a', ['gw', 'other']],
    ])
    expect(problemsOf({ GATEWAY_JWT_ISSUER: 'https://idp.example' })).toEqual(['GATEWAY_JWT_ISSUER and GATEWAY_JWT_AUDIENCE go together: set both, or neither'])
  })

  test('files: local by default (512 MiB, an hour to upload); FILES_* choose S3 and its settings; s3 without a bucket is refused', () => {
    expect(loadConfig({ env: {}, cwd: emptyDir() }).files).toEqual({ store: 'local', max_file_bytes: 512 * 1024 * 1024, upload_timeout_seconds: 3600 })
    const env = {
      FILES_STORE: 's3',
      FILES_S3_BUCKET: 'gw-files',
      FILES_S3_ENDPOINT: 'http://127.0.0.1:9000',
      FILES_S3_REGION: 'eu-west-1',
      FILES_S3_ACCESS_KEY_ID: 'AKIA',
      FILES_S3_SECRET_ACCESS_KEY: 'secret',
      FILES_S3_SESSION_TOKEN: 'token',
      FILES_S3_PREFIX: 'gw/',
      FILES_MAX_FILE_BYTES: '1048576',
      FILES_UPLOAD_TIMEOUT_SECONDS: '60',
    }
    expect(loadConfig({ env, cwd: emptyDir() }).files).toEqual({
      store: 's3',
      max_file_bytes: 1048576,
      upload_timeout_seconds: 60,
      s3: {
        bucket: 'gw-files',
        endpoint: 'http://127.0.0.1:9000',
        region: 'eu-west-1',
        access_key_id: 'AKIA',
        secret_access_key: 'secret',
        session_token: 'token',
        prefix: 'gw/',
        virtual_hosted_style: false,
      },
    })
    expect(() => loadConfig({ env: { FILES_STORE: 's3' }, cwd: emptyDir() })).toThrow("files.s3.bucket: required when files.store is 's3'")
  })

  test('defaults: port 8080, no providers, nothing logged', () => {
    const config = loadConfig({ env: {}, cwd: emptyDir() })
    expect(config.server.port).toBe(8080)
    expect(config.server.host).toBe('0.0.0.0')
    expect(config.providers).toEqual({})
    expect(config.logging).toMatchObject({ log_bodies: false, log_headers: false, retention_days: 30 })
  })

  test('one variable per provider, with base URL, static models and Azure api version', () => {
    const config = loadConfig({
      env: {
        OPENAI_API_KEY: 'sk-a',
        GROQ_API_KEY: 'gsk-b',
        GROQ_MODELS: 'llama-3.3-70b, mixtral ',
        AZURE_API_KEY: 'az',
        AZURE_BASE_URL: 'https://res.openai.azure.com/openai',
        AZURE_API_VERSION: '2024-10-21',
        OLLAMA_BASE_URL: 'http://localhost:11434/v1',
      },
      cwd: emptyDir(),
    })
    expect(Object.keys(config.providers).sort()).toEqual(['azure', 'groq', 'ollama', 'openai'])
    expect(config.providers.groq!.models).toEqual(['llama-3.3-70b', 'mixtral'])
    expect(config.providers.azure!.api_version).toBe('2024-10-21')
    expect(config.providers.ollama!.api_key).toBeUndefined()
  })

  test('environment overrides YAML, and ${VAR} expands inside YAML', () => {
    const dir = emptyDir()
    writeFileSync(
      join(dir, 'gateway.yaml'),
      'server:\n  port: 9000\nproviders:\n  mine:\n    type: openai\n    api_key: ${MY_KEY}\nvirtual_models:\n  - source: fast\n    target: mine/gpt-4o-mini\n',
    )
    const config = loadConfig({ env: { MY_KEY: 'sk-from-env', PORT: '9100' }, cwd: dir })
    expect(config.server.port).toBe(9100)
    expect(config.providers.mine!.api_key).toBe('sk-from-env')
    expect(config.virtual_models).toEqual([{ source: 'fast', target: 'mine/gpt-4o-mini' }])
  })

  test('a bad value names the field, its origin and what was expected', () => {
    expect(problemsOf({ PORT: 'eighty' })[0]).toMatch(/^server\.port \(from env PORT\): .*number/)
    expect(problemsOf({ PORT: '70000' })[0]).toMatch(/^server\.port \(from env PORT\)/)
    expect(problemsOf({ LOGGING_LOG_BODIES: 'maybe' })[0]).toMatch(/^logging\.log_bodies \(from env LOGGING_LOG_BODIES\)/)
    expect(problemsOf({ OPENAI_API_KEY: 'k', OPENAI_BASE_URL: 'not a url' })[0]).toMatch(/^providers\.openai\.base_url \(from env OPENAI_BASE_URL\)/)
    expect(problemsOf({ VLLM_API_KEY: 'k' })[0]).toMatch(/^providers\.vllm\.base_url: required/)
    expect(problemsOf({ VIRTUAL_MODELS: '[{"source":"x","target":"nobody/m"}]' })[0]).toMatch(/^virtual_models\[0\]\.target/)
    expect(problemsOf({ VIRTUAL_MODELS: 'not json' })[0]).toMatch(/^VIRTUAL_MODELS: expected a JSON array/)
    expect(problemsOf({ GATEWAY_CONFIG: '/nonexistent/gw.yaml' })[0]).toMatch(/^GATEWAY_CONFIG: file not found/)
  })

  test('unknown YAML keys are rejected with their path', () => {
    const dir = emptyDir()
    writeFileSync(join(dir, 'gateway.yaml'), 'server:\n  prot: 1\n')
    expect(problemsOf({}, dir)[0]).toMatch(/^server.*prot/)
  })
})

describe('${VAR} expansion in YAML', () => {
  const yamlWith = (text: string) => {
    const dir = emptyDir()
    writeFileSync(join(dir, 'gateway.yaml'), text)
    return dir
  }
  const providerYaml = 'providers:\n  mine:\n    type: openai\n    base_url: https://api.example.com/v1\n    api_key: ${MY_KEY}\n'

  test('a secret containing " #" is kept whole, not cut as a comment', () => {
    const config = loadConfig({ env: { MY_KEY: 'sk-abc #def' }, cwd: yamlWith(providerYaml) })
    expect(config.providers.mine!.api_key).toBe('sk-abc #def')
  })

  test('a value containing ": " is a plain string and does not break start-up', () => {
    const config = loadConfig({ env: { MY_KEY: 'sk: abc: def' }, cwd: yamlWith(providerYaml) })
    expect(config.providers.mine!.api_key).toBe('sk: abc: def')
  })

  test('a value containing a newline cannot inject keys', () => {
    const injected = 'sk-x\n    base_url: http://attacker.example'
    const config = loadConfig({ env: { MY_KEY: injected }, cwd: yamlWith(providerYaml) })
    expect(config.providers.mine!.api_key).toBe(injected)
    expect(config.providers.mine!.base_url).toBe('https://api.example.com/v1')
  })

  test('quotes, braces and YAML syntax in a value stay literal', () => {
    for (const value of ['"quoted"', "it's", '{a: 1}', '[1, 2]', '&anchor', '*alias', '- item', '|', '${OTHER}']) {
      const config = loadConfig({ env: { MY_KEY: value, OTHER: 'no' }, cwd: yamlWith(providerYaml) })
      expect(config.providers.mine!.api_key).toBe(value)
    }
  })

  test('several references and text around them in one scalar', () => {
    const dir = yamlWith('providers:\n  mine:\n    type: openai\n    api_key: k\n    base_url: https://${HOST}:${PORT_NO}/v1\n')
    const config = loadConfig({ env: { HOST: 'llm.internal', PORT_NO: '8443' }, cwd: dir })
    expect(config.providers.mine!.base_url).toBe('https://llm.internal:8443/v1')
  })

  test('an unset variable without a default stops start-up naming the variable and the field', () => {
    const problems = problemsOf({}, yamlWith(providerYaml))
    expect(problems).toHaveLength(1)
    expect(problems[0]).toMatch(/^providers\.mine\.api_key: environment variable MY_KEY is not set/)
  })

  test('a bad expanded value names the variable it came from, not its content', () => {
    const dir = yamlWith('providers:\n  mine:\n    type: openai\n    api_key: k\n    base_url: ${SECRET_URL}\n')
    const [problem] = problemsOf({ SECRET_URL: 'not-a-url-s3cr3t' }, dir)
    expect(problem).toMatch(/^providers\.mine\.base_url \(from .*gateway\.yaml via \$\{SECRET_URL\}\)/)
    expect(problem).not.toContain('s3cr3t')
  })

  test('every unset variable is named, not only the first', () => {
    const dir = yamlWith('providers:\n  a:\n    type: openai\n    api_key: ${KEY_A}\n  b:\n    type: openai\n    api_key: ${KEY_B}\n')
    const problems = problemsOf({}, dir)
    expect(problems.join('\n')).toContain('KEY_A')
    expect(problems.join('\n')).toContain('KEY_B')
  })

  test('${VAR:-default} uses the default when the variable is unset or empty, the variable otherwise', () => {
    const dir = yamlWith('server:\n  host: ${BIND:-127.0.0.1}\n  port: ${GW_PORT:-9001}\n')
    expect(loadConfig({ env: {}, cwd: dir }).server).toMatchObject({ host: '127.0.0.1', port: 9001 })
    expect(loadConfig({ env: { BIND: '' }, cwd: dir }).server.host).toBe('127.0.0.1')
    expect(loadConfig({ env: { BIND: '::1', GW_PORT: '9002' }, cwd: dir }).server).toMatchObject({ host: '::1', port: 9002 })
  })

  test('a variable set to the empty string expands to the empty string', () => {
    const dir = yamlWith('database:\n  path: ./data/${SUFFIX}gw.db\n')
    expect(loadConfig({ env: { SUFFIX: '' }, cwd: dir }).database.path).toBe('./data/gw.db')
  })

  test('$${ is a literal ${, and references in comments and keys are not expanded', () => {
    const dir = yamlWith('# api_key: ${NOT_SET_ANYWHERE}\nproviders:\n  mine:\n    type: openai\n    api_key: pre$${MY_KEY}post\n')
    expect(loadConfig({ env: {}, cwd: dir }).providers.mine!.api_key).toBe('pre${MY_KEY}post')
  })

  test('values inside lists and nested mappings expand too', () => {
    const dir = yamlWith('providers:\n  mine:\n    type: openai\n    api_key: k\n    base_url: https://x.example/v1\n    models:\n      - ${M1}\n      - "${M2}"\n')
    expect(loadConfig({ env: { M1: 'a #1', M2: 'b: 2' }, cwd: dir }).providers.mine!.models).toEqual(['a #1', 'b: 2'])
  })
})

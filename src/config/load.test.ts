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
    writeFileSync(join(dir, 'gateway.yaml'), 'server:\n  port: 9000\nproviders:\n  mine:\n    type: openai\n    api_key: ${MY_KEY}\nvirtual_models:\n  - source: fast\n    target: mine/gpt-4o-mini\n')
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

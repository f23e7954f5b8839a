import { describe, expect, test } from 'bun:test'
import { loadConfig } from '../config/load.ts'
import { GatewayError } from '../errors/gateway-error.ts'
import { silentLogger } from '../log/logger.ts'
import { ProviderRegistry } from '../providers/registry.ts'
import { ModelCatalog } from './catalog.ts'
import { canonicalModelId, modelIdProblem, modelPathProblem } from './model-id.ts'

describe('modelIdProblem', () => {
  test('the ids providers really use pass', () => {
    const real = [
      'gpt-4o-mini-2024-07-18',
      'meta-llama/Llama-3.3-70B-Instruct',
      'accounts/fireworks/models/llama-v3p1-8b-instruct',
      'gemini-2.0-flash-001',
      'models/gemini-2.5-pro',
      'tunedModels/my-model-abc123',
      'claude-3-5-sonnet@20240620',
      'llama3.1:8b',
      'hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF:Q4_K_M',
      'ft:gpt-4o-mini-2024-07-18:my-org:custom:9nE3aBcD',
      '@cf/meta/llama-3-8b-instruct',
      'openai/gpt-4o:online',
      '~anthropic/claude-sonnet-latest',
      'anthropic.claude-3-5-sonnet-20240620-v1:0',
      'my_deployment.v2',
      'x',
    ]
    for (const id of real) expect([id, modelIdProblem(id)]).toEqual([id, undefined])
  })

  test('traversal, URL syntax, escapes, control characters and odd segments are refused with the reason', () => {
    const cases: [string, string][] = [
      ['gem/gemini-2.0-flash/../../v1beta/models/gemini-2.5-pro', "it has a '..' path segment"],
      ['gem/gemini-2.0-flash/../../v1beta/cachedContents#', "it has a '..' path segment"],
      ['a/./b', "it has a '.' path segment"],
      ['a/...', "it has a '...' path segment"],
      ['a//b', 'empty path segment'],
      ['/a', 'empty path segment'],
      ['a/', 'empty path segment'],
      ['', 'it is empty'],
      ['a?b', "'?' is not allowed"],
      ['a#', "'#' is not allowed"],
      ['a%2e%2e', "'%' is not allowed"],
      ['a\\..\\b', "'\\' is not allowed"],
      ['a b', "' ' is not allowed"],
      ['a\u0000', 'the control character U+0000 is not allowed'],
      ['a\n', 'the control character U+000A is not allowed'],
      ['gpt-4о', "'о' is not allowed"],
      ['a🙂', "'🙂' is not allowed"],
      ['x'.repeat(257), 'longer than 256 characters'],
    ]
    for (const [id, reason] of cases) expect(modelIdProblem(id)).toContain(reason)
  })

  test('a provider with the model in its URL path takes one segment or one of its collections', () => {
    const gemini = { collections: ['models', 'tunedModels'] }
    expect(modelPathProblem('gemini-2.0-flash', gemini)).toBeUndefined()
    expect(modelPathProblem('tunedModels/abc', gemini)).toBeUndefined()
    expect(modelPathProblem('models/gemini-2.5-pro', gemini)).toBeUndefined()
    for (const id of ['cachedContents/abc', 'gemini-2.0-flash/x', 'models/a/b', 'files/x']) expect(modelPathProblem(id, gemini)).toContain("'models/<id>' or 'tunedModels/<id>'")
    expect(modelPathProblem('dep/other', { collections: [] })).toBe('this provider takes a model id without slashes')
    expect(canonicalModelId('models/gemini-2.5-pro', gemini)).toBe('gemini-2.5-pro')
    expect(canonicalModelId('tunedModels/abc', gemini)).toBe('tunedModels/abc')
    expect(canonicalModelId('models/x', undefined)).toBe('models/x')
  })
})

describe('the catalogue checks every name before it resolves it', () => {
  const config = loadConfig({
    env: {
      GEMINI_API_KEY: 'k',
      OPENAI_API_KEY: 'k',
      VIRTUAL_MODELS: JSON.stringify([{ source: 'fast', target: 'gemini/models/gemini-2.5-flash' }]),
    },
    cwd: '/nonexistent-dir-for-tests',
  })
  const catalog = new ModelCatalog(new ProviderRegistry(config, {}), config.virtual_models, silentLogger)

  test('a bad name is a 400 invalid_model naming the reason; nothing is resolved', () => {
    for (const name of ['gemini/gemini-2.0-flash/../../v1beta/models/gemini-2.5-pro', 'gemini/cachedContents/x', 'openai/a#', 'nope/../x']) {
      const r = catalog.resolve(name)
      expect(r.ok).toBe(false)
      const error = (r as { error: GatewayError }).error
      expect(error).toBeInstanceOf(GatewayError)
      expect(error).toMatchObject({ status: 400, type: 'invalid_request_error', code: 'invalid_model', param: 'model' })
      expect(error.message).toStartWith(`The model '${name}' is not a valid model name: `)
    }
  })

  test('a Gemini model written with its collection resolves to the bare id, directly and through a virtual model', () => {
    expect(catalog.resolve('gemini/models/gemini-2.5-pro')).toMatchObject({ ok: true, target: { selector: 'gemini/gemini-2.5-pro', model: 'gemini-2.5-pro' } })
    expect(catalog.resolve('fast')).toMatchObject({ ok: true, target: { selector: 'gemini/gemini-2.5-flash' } })
    // The body carries the model for OpenAI: `models/` is part of its id there.
    expect(catalog.resolve('openai/models/x')).toMatchObject({ ok: true, target: { model: 'models/x' } })
  })

  test('the configuration refuses a virtual model or failover target that is no model name', () => {
    const load = (models: unknown) => () => loadConfig({ env: { OPENAI_API_KEY: 'k', VIRTUAL_MODELS: JSON.stringify(models) }, cwd: '/nonexistent-dir-for-tests' })
    expect(load([{ source: 'ok', target: 'openai/a/../b' }])).toThrow("expected a model name, but it has a '..' path segment")
    expect(load([{ source: 'has space', target: 'openai/a' }])).toThrow("expected a model name, but ' ' is not allowed")
  })
})

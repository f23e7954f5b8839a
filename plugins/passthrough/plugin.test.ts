import { beforeAll, describe, expect, test } from 'bun:test'
import type { PluginDeps } from '../../src/pipeline/types.ts'
import { makeContext, makeDeps, pluginHooks } from '../../test/helpers/plugin-harness.ts'
import { passthrough } from './plugin.ts'

let deps: PluginDeps
beforeAll(async () => {
  deps = await makeDeps({
    OPENAI_API_KEY: 'sk-o',
    ANTHROPIC_API_KEY: 'sk-a',
    GEMINI_API_KEY: 'g',
    AZURE_API_KEY: 'az',
    AZURE_BASE_URL: 'https://res.openai.azure.com/openai',
    BEDROCK_MODELS: 'amazon.nova-pro-v1:0',
    AWS_REGION: 'us-west-2',
    VERTEX_PROJECT: 'acme-prod',
    VERTEX_LOCATION: 'europe-west4',
  })
})

function run(method: string, path: string, body?: Record<string, unknown>, query = '') {
  const ctx = makeContext({ endpoint: 'passthrough', method, path, body })
  ctx.rawQuery = query
  const decision = pluginHooks(passthrough, {}, deps).before!(ctx)
  return { ctx, decision: decision as Exclude<typeof decision, Promise<unknown>> }
}

describe('the pass-through route', () => {
  test('the model from the body or the path becomes <provider>/<model>; the URL is the base URL with the path after the API root', () => {
    const cases: [string, Record<string, unknown> | undefined, string, string, string][] = [
      ['/p/openai/v1/chat/completions', { model: 'gpt-4o' }, '', 'openai/gpt-4o', 'https://api.openai.com/v1/chat/completions'],
      ['/p/anthropic/v1/messages', { model: 'claude-sonnet-4-5' }, 'beta=true', 'anthropic/claude-sonnet-4-5', 'https://api.anthropic.com/v1/messages?beta=true'],
      [
        '/p/gemini/v1beta/models/gemini-2.5-pro:streamGenerateContent',
        undefined,
        'alt=sse',
        'gemini/gemini-2.5-pro',
        'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse',
      ],
      [
        '/p/bedrock/model/us.anthropic.claude-sonnet-4-20250514-v1%3A0/invoke-with-response-stream',
        undefined,
        '',
        'bedrock/us.anthropic.claude-sonnet-4-20250514-v1:0',
        'https://bedrock-runtime.us-west-2.amazonaws.com/model/us.anthropic.claude-sonnet-4-20250514-v1%3A0/invoke-with-response-stream',
      ],
      [
        '/p/vertex/v1/projects/acme-prod/locations/europe-west4/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict',
        undefined,
        '',
        'vertex/claude-sonnet-4-5@20250929',
        'https://europe-west4-aiplatform.googleapis.com/v1/projects/acme-prod/locations/europe-west4/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict',
      ],
      [
        '/p/azure/openai/deployments/gpt-4o/chat/completions',
        undefined,
        'api-version=2024-10-21',
        'azure/gpt-4o',
        'https://res.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21',
      ],
    ]
    for (const [path, body, query, model, url] of cases) {
      const { ctx, decision } = run('POST', path, body, query)
      expect([path, decision.kind]).toEqual([path, 'continue'])
      expect(ctx.requestedModel).toBe(model)
      expect(String(ctx.passthrough!.url)).toBe(url)
    }
  })

  test('streams are recognised from the body, the path or alt=sse', () => {
    expect(run('POST', '/p/openai/v1/chat/completions', { model: 'gpt-4o', stream: true }).ctx.stream).toBe(true)
    expect(run('POST', '/p/bedrock/model/m/converse-stream').ctx.stream).toBe(true)
    expect(run('POST', '/p/gemini/v1beta/models/gemini-2.5-pro:streamGenerateContent', undefined, 'alt=sse').ctx.stream).toBe(true)
    expect(run('POST', '/p/bedrock/model/m/converse').ctx.stream).toBe(false)
  })

  test('refused: paths off the allow-list, another project, another method, no model, bad model names, unknown providers', () => {
    const refusals: [string, string, Record<string, unknown> | undefined, number, string][] = [
      ['POST', '/p/openai/v1/files', { model: 'gpt-4o' }, 403, 'passthrough_path_not_allowed'],
      ['POST', '/p/openai/v1/fine_tuning/jobs', { model: 'gpt-4o' }, 403, 'passthrough_path_not_allowed'],
      ['GET', '/p/openai/v1/models', undefined, 403, 'passthrough_path_not_allowed'],
      ['POST', '/p/openai/chat/completions', { model: 'gpt-4o' }, 403, 'passthrough_path_not_allowed'],
      ['POST', '/p/anthropic/v1/messages/batches', { model: 'claude' }, 403, 'passthrough_path_not_allowed'],
      ['POST', '/p/gemini/v1beta/cachedContents', undefined, 403, 'passthrough_path_not_allowed'],
      ['POST', '/p/gemini/v1beta/tunedModels/x:generateContent', undefined, 403, 'passthrough_path_not_allowed'],
      ['POST', '/p/vertex/v1/projects/other/locations/europe-west4/publishers/google/models/gemini-2.5-pro:generateContent', undefined, 403, 'passthrough_path_not_allowed'],
      ['POST', '/p/vertex/v1/projects/acme-prod/locations/us-central1/publishers/google/models/gemini-2.5-pro:generateContent', undefined, 403, 'passthrough_path_not_allowed'],
      ['GET', '/p/anthropic/v1/messages', undefined, 400, 'method_not_allowed'],
      ['POST', '/p/openai/v1/chat/completions', { messages: [] }, 400, 'invalid_model'],
      ['POST', '/p/bedrock/model/a%2Fb/converse', undefined, 400, 'invalid_path'],
      ['POST', '/p/bedrock/model/%2e%2e/converse', undefined, 400, 'invalid_model'],
      ['POST', '/p/nobody/v1/chat/completions', { model: 'x' }, 404, 'provider_not_found'],
    ]
    for (const [method, path, body, status, code] of refusals) {
      const { ctx, decision } = run(method, path, body)
      expect([path, decision.kind, ctx.error?.status, ctx.error?.code]).toEqual([path, 'respond', status, code])
      expect(ctx.passthrough).toBeUndefined()
    }
  })

  test('other endpoints are not its business', () => {
    const ctx = makeContext({ endpoint: 'chat.completions', body: { model: 'gpt-4o' } })
    expect(pluginHooks(passthrough, {}, deps).before!(ctx)).toEqual({ kind: 'continue' })
    expect(ctx.passthrough).toBeUndefined()
  })
})

/**
 * The /v1 success bodies the OpenAPI document gives (src/protocols/response-schemas.ts, through the endpoint table)
 * are what the gateway answers: every family's real answer (a native one and the translated ones) matches its
 * endpoint's schema, and the document carries those schemas rather than a bare object.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { endpoint } from '../../src/protocols/endpoints.ts'
import { startEveryFamilyGateway, type EveryFamilyGateway } from '../helpers/every-family-gateway.ts'

const MASTER = 'master-key-openapi-success-bodies-0123456789'
let families: EveryFamilyGateway
let paths: Record<string, Record<string, { responses: Record<string, { content: Record<string, { schema: { required?: string[] } }> }> }>>

beforeAll(async () => {
  families = await startEveryFamilyGateway(MASTER)
  paths = ((await (await fetch(`${families.gw.url}/openapi/json`)).json()) as { paths: typeof paths }).paths
})
afterAll(() => families.stop())

const MODELS = ['openai/gpt-4o', 'anthropic/claude-sonnet-4-5', 'gemini/gemini-2.5-flash']
const bodies = {
  'chat.completions': (model: string) => ({ model, messages: [{ role: 'user', content: 'Hi' }] }),
  responses: (model: string) => ({ model, input: 'Hi' }),
  messages: (model: string) => ({ model, max_tokens: 20, messages: [{ role: 'user', content: 'Hi' }] }),
  'messages.count_tokens': (model: string) => ({ model, messages: [{ role: 'user', content: 'Hi' }] }),
} as const

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${families.gw.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: res.status, body: (await res.json()) as unknown }
}

describe('documented success bodies', () => {
  for (const [id, make] of Object.entries(bodies)) {
    for (const model of MODELS) {
      test(`${id} from ${model} matches its schema`, async () => {
        const e = endpoint(id as keyof typeof bodies)
        const answer = await call('POST', e.path, make(model))
        expect(answer.status).toBe(200)
        const checked = e.response!().safeParse(answer.body)
        expect(checked.success ? 'ok' : JSON.stringify(checked.error.issues)).toBe('ok')
      })
    }
  }

  test('the model list and one model match theirs', async () => {
    const list = await call('GET', '/v1/models')
    expect(endpoint('models.list').response!().safeParse(list.body).success).toBe(true)
    const one = await call('GET', '/v1/models/openai/gpt-4o')
    expect(one.status).toBe(200)
    expect(endpoint('models.get').response!().safeParse(one.body).success).toBe(true)
  })

  test('the document carries the schemas, and they can fail', () => {
    const required = (path: string, method: string) => paths[path]![method]!.responses['200']!.content['application/json']!.schema.required
    expect(required('/v1/chat/completions', 'post')).toEqual(expect.arrayContaining(['id', 'object', 'choices', 'model']))
    expect(required('/v1/messages', 'post')).toEqual(expect.arrayContaining(['type', 'content', 'stop_reason', 'usage']))
    expect(required('/v1/responses', 'post')).toEqual(expect.arrayContaining(['object', 'output', 'status']))
    expect(required('/v1/messages/count_tokens', 'post')).toEqual(['input_tokens'])
    expect(required('/v1/models', 'get')).toEqual(['object', 'data'])
    // A chat answer without choices, an Anthropic answer in the OpenAI shape: refused.
    expect(endpoint('chat.completions').response!().safeParse({ id: 'x', object: 'chat.completion', created: 1, model: 'm' }).success).toBe(false)
    expect(endpoint('messages').response!().safeParse({ id: 'x', object: 'chat.completion', choices: [] }).success).toBe(false)
  })
})

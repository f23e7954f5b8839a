import { describe, expect, test } from 'bun:test'
import { z } from 'zod'
import { validationError } from '../errors/validation-error.ts'
import { ENDPOINTS, endpoint } from './endpoints.ts'
import { MAX_COMPLETION_PROMPTS, MAX_CONTENT_PARTS, MAX_TOKEN_IDS, MAX_EMBEDDING_INPUTS, MAX_INPUT_ITEMS, MAX_MESSAGES, MAX_TOOLS } from './request-limits.ts'

/** JSON-Schema paths of the arrays in `schema` that have no `maxItems`. */
function unboundedArrays(node: unknown, path = '#'): string[] {
  if (typeof node !== 'object' || node === null) return []
  const here = (node as { type?: unknown; maxItems?: unknown }).type === 'array' && typeof (node as { maxItems?: unknown }).maxItems !== 'number' ? [path] : []
  return [...here, ...Object.entries(node).flatMap(([key, child]) => unboundedArrays(child, `${path}/${key}`))]
}

test('every array a request schema of the endpoint table checks is bounded (rows added later included)', () => {
  const withSchema = ENDPOINTS.filter((e) => 'request' in e && e.request)
  expect(withSchema.length).toBeGreaterThanOrEqual(4)
  for (const e of withSchema) {
    const schema = z.toJSONSchema(endpoint(e.id).request!, { io: 'input', unrepresentable: 'any' })
    expect({ endpoint: e.id, unbounded: unboundedArrays(schema) }).toEqual({ endpoint: e.id, unbounded: [] })
  }
})

const many = (count: number, item: unknown = {}) => Array.from({ length: count }, () => item)
const problem = (id: Parameters<typeof endpoint>[0], body: unknown) => validationError(endpoint(id).request!, body)

describe('each bound: at the bound is accepted, past it is a 400 naming the field and the bound', () => {
  const cases: [Parameters<typeof endpoint>[0], (n: number) => unknown, number, string][] = [
    ['chat.completions', (n) => ({ model: 'm', messages: many(n, { role: 'user', content: 'x' }) }), MAX_MESSAGES, 'messages'],
    ['chat.completions', (n) => ({ model: 'm', messages: [{ role: 'user', content: many(n, { type: 'text', text: 'x' }) }] }), MAX_CONTENT_PARTS, 'messages.0.content'],
    ['chat.completions', (n) => ({ model: 'm', messages: [{ role: 'user', content: 'x' }], tools: many(n, { type: 'function' }) }), MAX_TOOLS, 'tools'],
    ['responses', (n) => ({ model: 'm', input: many(n, { role: 'user', content: 'x' }) }), MAX_INPUT_ITEMS, 'input'],
    ['responses', (n) => ({ model: 'm', input: 'x', tools: many(n, { type: 'web_search' }) }), MAX_TOOLS, 'tools'],
    ['messages', (n) => ({ model: 'm', max_tokens: 1, messages: many(n, { role: 'user', content: 'x' }) }), MAX_MESSAGES, 'messages'],
    ['messages', (n) => ({ model: 'm', max_tokens: 1, messages: [{ role: 'user', content: many(n, { type: 'text', text: 'x' }) }] }), MAX_CONTENT_PARTS, 'messages.0.content'],
    ['messages', (n) => ({ model: 'm', max_tokens: 1, system: many(n, { type: 'text', text: 'x' }), messages: [] }), MAX_CONTENT_PARTS, 'system'],
    ['messages.count_tokens', (n) => ({ model: 'm', messages: [], tools: many(n, { name: 't', input_schema: {} }) }), MAX_TOOLS, 'tools'],
    ['embeddings', (n) => ({ model: 'm', input: many(n, 'x') }), MAX_EMBEDDING_INPUTS, 'input'],
    ['completions', (n) => ({ model: 'm', prompt: many(n, 'x') }), MAX_COMPLETION_PROMPTS, 'prompt'],
    ['completions', (n) => ({ model: 'm', prompt: many(n, 1) }), MAX_TOKEN_IDS, 'prompt'],
    ['embeddings', (n) => ({ model: 'm', input: many(n, [1]) }), MAX_EMBEDDING_INPUTS, 'input'],
    ['embeddings', (n) => ({ model: 'm', input: many(n, 1) }), MAX_TOKEN_IDS, 'input'],
  ]
  for (const [id, body, bound, param] of cases) {
    test(`${id} ${param}: ${bound}`, () => {
      expect(problem(id, body(bound))).toBeUndefined()
      const error = problem(id, body(bound + 1))!
      expect(error).toMatchObject({ status: 400, param })
      expect(error.message).toStartWith(`${param}: expected at most ${bound} `)
    })
  }
})

test('an embeddings input that fails is named by the form it has: the token array past its bound, an empty list', () => {
  expect(problem('embeddings', { model: 'm', input: [[1], many(MAX_TOKEN_IDS + 1, 1)] })!.message).toBe(`input: 1: expected at most ${MAX_TOKEN_IDS} tokens`)
  expect(problem('embeddings', { model: 'm', input: ['a', 2] })!.message).toBe('input: 1: Invalid input: expected string, received number')
  expect(problem('embeddings', { model: 'm', input: [] })!.message).toBe('input: expected at least one input')
  expect(problem('embeddings', { model: 'm', input: 5 })!.message).toStartWith('input: expected a string, an array of strings')
})

test('chat content keeps its shape check: a string, an array of parts or null', () => {
  expect(problem('chat.completions', { model: 'm', messages: [{ role: 'assistant', content: null, tool_calls: [] }] })).toBeUndefined()
  expect(problem('chat.completions', { model: 'm', messages: [{ role: 'user', content: 5 }] })).toMatchObject({
    param: 'messages.0.content',
    message: 'messages.0.content: expected a string or an array of content parts',
  })
})

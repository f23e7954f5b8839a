import { expect, test } from 'bun:test'
import { allowedModelProblem, isModelAllowed } from './model-access.ts'

test('exact names and prefix patterns', () => {
  expect(isModelAllowed(['openai/gpt-4o'], ['openai/gpt-4o'])).toBe(true)
  expect(isModelAllowed(['openai/gpt-4o'], ['openai/gpt-4o-mini'])).toBe(false)
  expect(isModelAllowed(['openai/*'], ['openai/gpt-4o-mini'])).toBe(true)
  expect(isModelAllowed(['openai/*'], ['openai-evil/gpt'])).toBe(false)
  expect(isModelAllowed(['*'], ['anything'])).toBe(true)
})

test('any of the names may match (requested name or resolved selector)', () => {
  expect(isModelAllowed(['fast'], ['fast', 'groq/llama'])).toBe(true)
  expect(isModelAllowed(['groq/*'], ['fast', 'groq/llama'])).toBe(true)
  expect(isModelAllowed(['openai/*'], ['fast', 'groq/llama'])).toBe(false)
  expect(isModelAllowed(['fast'], [undefined, undefined])).toBe(false)
})

test('null or undefined means unrestricted; an empty list allows nothing', () => {
  expect(isModelAllowed(null, ['x'])).toBe(true)
  expect(isModelAllowed(undefined, ['x'])).toBe(true)
  expect(isModelAllowed([], ['x'])).toBe(false)
})

test('entry validation', () => {
  expect(allowedModelProblem('openai/*')).toBeUndefined()
  expect(allowedModelProblem('fast')).toBeUndefined()
  expect(allowedModelProblem('')).toBeDefined()
  expect(allowedModelProblem('open*ai')).toBeDefined()
  expect(allowedModelProblem('gpt 4')).toBeDefined()
  expect(allowedModelProblem('a\u0000')).toBeDefined()
})

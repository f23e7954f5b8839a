import { expect, test } from 'bun:test'
import { countChatPromptTokens, countCompletionTokens, countTextTokens } from './count.ts'

test('counts with the o200k tokenizer', () => {
  expect(countTextTokens('')).toBe(0)
  expect(countTextTokens('hello world')).toBe(2)
  expect(countTextTokens('hello      world')).toBeGreaterThan(countTextTokens('hello world'))
})

test('prompt tokens grow with messages and tools; completion tokens with the answer', () => {
  const one = countChatPromptTokens({ messages: [{ role: 'user', content: 'Say hello to everyone in the room' }] })
  const two = countChatPromptTokens({ messages: [{ role: 'user', content: [{ type: 'text', text: 'Say hello to everyone in the room' }] }, { role: 'assistant', content: 'Hello everyone' }] })
  const withTools = countChatPromptTokens({ messages: [{ role: 'user', content: 'x' }], tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }] })
  expect(one).toBeGreaterThan(5)
  expect(two).toBeGreaterThan(one)
  expect(withTools).toBeGreaterThan(countChatPromptTokens({ messages: [{ role: 'user', content: 'x' }] }))
  expect(countCompletionTokens({ choices: [{ message: { content: 'Hello there, friend' } }] })).toBe(4)
})

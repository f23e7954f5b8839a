import { expect, test } from 'bun:test'
import { ChatStreamFold } from './chat-stream-fold.ts'

test('folds text, tool call fragments and the usage chunk into one chat.completion', () => {
  const fold = new ChatStreamFold()
  const base = { id: 'c1', object: 'chat.completion.chunk', created: 5, model: 'm' }
  fold.add({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' } }] })
  fold.add({ ...base, choices: [{ index: 0, delta: { content: 'Hel' } }] })
  fold.add({ ...base, choices: [{ index: 0, delta: { content: 'lo' } }] })
  fold.add({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a"' } }] } }] })
  fold.add({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: ':1}' } }] } }] })
  fold.add({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] })
  fold.add({ ...base, choices: [], usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } })
  expect(fold.result()).toEqual({
    id: 'c1',
    object: 'chat.completion',
    created: 5,
    model: 'm',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: 'Hello', refusal: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }] },
        logprobs: null,
        finish_reason: 'tool_calls',
      },
    ],
    usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
  })
})

test('keeps several choices apart and remembers a stream-borne error', () => {
  const fold = new ChatStreamFold()
  fold.add({
    id: 'x',
    choices: [
      { index: 1, delta: { content: 'b' } },
      { index: 0, delta: { content: 'a' } },
    ],
  })
  fold.add({ error: { message: 'boom' } })
  const result = fold.result() as { choices: { index: number; message: { content: string } }[] }
  expect(result.choices.map((c) => [c.index, c.message.content])).toEqual([
    [0, 'a'],
    [1, 'b'],
  ])
  expect(fold.error).toEqual({ message: 'boom' })
})

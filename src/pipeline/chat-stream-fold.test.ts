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

test('hostile tool-call indexes (5×10⁷, 2³²−2) are kept sparsely: folded at once, in index order, nothing invented', () => {
  const fold = new ChatStreamFold()
  const call = (index: number, id: string, args: string) => ({
    choices: [{ index: 0, delta: { tool_calls: [{ index, id, type: 'function', function: { name: id, arguments: args } }] } }],
  })
  const started = performance.now()
  fold.add(call(4_294_967_294, 'last', '{}'))
  fold.add(call(50_000_000, 'middle', '{"a":'))
  fold.add({ choices: [{ index: 0, delta: { tool_calls: [{ index: 50_000_000, function: { arguments: '1}' } }] } }] })
  fold.add(call(0, 'first', '{}'))
  // No index: after the highest one seen, as a client appending to a list would read it.
  fold.add({ choices: [{ index: 0, delta: { tool_calls: [{ id: 'unnumbered', type: 'function', function: { name: 'u', arguments: '' } }] }, finish_reason: 'tool_calls' }] })
  const calls = (fold.result() as { choices: { message: { tool_calls: { id: string; function: { arguments: string } }[] } }[] }).choices[0]!.message.tool_calls
  // Milliseconds at most, where listing 2³²−2 array slots took 81 s.
  expect(performance.now() - started).toBeLessThan(500)
  expect(calls.map((c) => c.id)).toEqual(['first', 'middle', 'last', 'unnumbered'])
  expect(calls[1]!.function.arguments).toBe('{"a":1}')
})

import { expect, test } from 'bun:test'
import { completionsStreamCodec } from './stream-codec.ts'

const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({
  data: JSON.stringify({ id: 'cmpl-1', object: 'text_completion', created: 5, model: 'm', choices, ...extra }),
})

test('a text completion stream folds into the text_completion it stands for: choices by index, usage, [DONE] ignored', () => {
  const fold = completionsStreamCodec.createFold()
  fold.add(chunk([{ index: 1, text: 'B', finish_reason: null }]))
  fold.add(chunk([{ index: 0, text: 'Hel', finish_reason: null }]))
  fold.add(chunk([{ index: 0, text: 'lo', finish_reason: null }]))
  fold.add(chunk([{ index: 0, text: '', finish_reason: 'length' }]))
  fold.add(chunk([], { usage: { prompt_tokens: 2, completion_tokens: 3, total_tokens: 5 } }))
  fold.add({ data: '[DONE]' })
  expect(fold.result()).toEqual({
    id: 'cmpl-1',
    object: 'text_completion',
    created: 5,
    model: 'm',
    choices: [
      { text: 'Hello', index: 0, logprobs: null, finish_reason: 'length' },
      { text: 'B', index: 1, logprobs: null, finish_reason: null },
    ],
    usage: { prompt_tokens: 2, completion_tokens: 3, total_tokens: 5 },
  })
  expect(fold.usage()).toEqual({ prompt_tokens: 2, completion_tokens: 3, total_tokens: 5 })
})

test('usage-only folds read just the usage and error events; an error event is kept', () => {
  const fold = completionsStreamCodec.createFold(true)
  fold.add(chunk([{ index: 0, text: 'skipped' }]))
  fold.add({ data: JSON.stringify({ error: { message: 'overloaded', type: 'server_error' } }) })
  expect(fold.error()).toEqual({ message: 'overloaded', type: 'server_error' })
  expect((fold.result() as { choices: unknown[] }).choices).toEqual([])
})

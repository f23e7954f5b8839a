import { beforeAll, expect, test } from 'bun:test'
import { loadCountThread } from '../tokens/count-thread.ts'
import { countChatPromptTokens, countTextsTokens } from '../tokens/count.ts'
import { endpoint } from './endpoints.ts'

beforeAll(() => loadCountThread(), 30_000)

const story = 'The quick brown fox jumps over the lazy dog, twice over and once again.'

test('Responses and Messages count their prompt as the chat request they translate to', async () => {
  const chat = await countChatPromptTokens({ messages: [{ role: 'user', content: story }] })
  expect(await endpoint('responses').api.promptTokens!({ input: story })).toBe(chat)
  expect(await endpoint('messages').api.promptTokens!({ messages: [{ role: 'user', content: story }], max_tokens: 5 })).toBe(chat)
  expect(await endpoint('messages.count_tokens').api.promptTokens!({ messages: [{ role: 'user', content: story }] })).toBe(chat)
  expect(await endpoint('responses.input_tokens').api.promptTokens!({ input: story })).toBe(chat)
  expect(endpoint('models.list').api.promptTokens).toBeNull()
  // A stored response's routes send no prompt.
  expect(endpoint('responses.retrieve').api.promptTokens).toBeNull()
})

test('embeddings count their inputs: texts with the tokenizer, token arrays by their length; nothing is output', async () => {
  const api = endpoint('embeddings').api
  const one = await countTextsTokens([story])
  expect(await api.promptTokens!({ input: story })).toBe(one)
  expect(await api.promptTokens!({ input: [story, story] })).toBe(await countTextsTokens([story, story]))
  expect(await api.promptTokens!({ input: [5, 6, 7] })).toBe(3)
  expect(await api.promptTokens!({ input: [[5, 6], [7]] })).toBe(3)
  expect(await api.promptTokens!({ input: 7 })).toBe(0)
  expect(await api.usage!.countOutputTokens({ object: 'list', data: [] })).toBe(0)
  expect(api.usage!.read({ prompt_tokens: 9, total_tokens: 9 }, {})).toMatchObject({ prompt_tokens: 9, completion_tokens: 0, total_tokens: 9 })
})

test('legacy completions count the prompt (texts, token arrays) and the suffix; the output is the choices’ texts', async () => {
  const api = endpoint('completions').api
  expect(await api.promptTokens!({ prompt: story })).toBe(await countTextsTokens([story]))
  expect(await api.promptTokens!({ prompt: story, suffix: story })).toBe(await countTextsTokens([story, story]))
  expect(await api.promptTokens!({ prompt: [[1, 2, 3], [4]] })).toBe(4)
  expect(await api.usage!.countOutputTokens({ object: 'text_completion', choices: [{ index: 0, text: story }] })).toBe(await countTextsTokens([story]))
  expect(api.parameters?.outputLimitFields).toEqual(['max_tokens'])
  expect(api.systemPrompt).toBeNull()
})

test('each API counts the output of its own answers (an estimate when the upstream reported no usage)', async () => {
  const expected = await countTextsTokens([story])
  const chat = { object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: story } }] }
  const responses = { object: 'response', output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: story }] }] }
  const messages = { type: 'message', role: 'assistant', content: [{ type: 'text', text: story }] }
  expect(await endpoint('chat.completions').api.usage!.countOutputTokens(chat)).toBe(expected)
  expect(await endpoint('responses').api.usage!.countOutputTokens(responses)).toBe(expected)
  expect(await endpoint('messages').api.usage!.countOutputTokens(messages)).toBe(expected)
})

test('a system prompt goes where each API keeps it; a chat body without messages has no place for it', () => {
  const place = (id: Parameters<typeof endpoint>[0], body: Record<string, unknown>) => endpoint(id).api.systemPrompt?.(body, 'OP', 'prepend')
  expect(place('chat.completions', { messages: [] })).toEqual({ messages: [{ role: 'system', content: 'OP' }] })
  expect(place('chat.completions', { input: 'x' })).toBeUndefined()
  expect(place('responses', { input: 'x' })).toEqual({ input: 'x', instructions: 'OP' })
  expect(place('messages', { messages: [] })).toEqual({ messages: [], system: 'OP' })
  expect(place('models.list', {})).toBeUndefined()
})

test('output limits are each API’s own fields, the winning one first', () => {
  expect(endpoint('chat.completions').api.parameters).toEqual({ outputLimitFields: ['max_completion_tokens', 'max_tokens'], providerRules: true })
  expect(endpoint('responses').api.parameters?.outputLimitFields).toEqual(['max_output_tokens'])
  expect(endpoint('messages').api.parameters?.outputLimitFields).toEqual(['max_tokens'])
  expect(endpoint('messages.count_tokens').api.parameters).toBeNull()
})

test('images: the prompt is counted, the images asked for are the units, reported tokens are kept beside them', async () => {
  const api = endpoint('images.generations').api
  expect(await api.promptTokens!({ prompt: story })).toBe(await countTextsTokens([story]))
  expect(api.usage!.requestedUnits!({ prompt: story, n: 3, size: '1792x1024', quality: 'hd' })).toEqual({ unit: 'image', units: 3, unit_variant: '1792x1024/hd' })
  expect(api.usage!.requestedUnits!({ prompt: story })).toEqual({ unit: 'image', units: 1, unit_variant: '/' })
  // DALL·E reports no usage: the answer's usage is the images, known exactly, not an estimate.
  expect(api.usage!.read(undefined, { n: 2 })).toMatchObject({ prompt_tokens: 0, completion_tokens: 0, unit: 'image', units: 2, estimated: false })
  expect(api.usage!.read({ input_tokens: 12, output_tokens: 4160, total_tokens: 4172 }, {})).toMatchObject({ prompt_tokens: 12, completion_tokens: 4160, units: 1 })
})

test('speech: the input and instructions are counted, its characters are the units; audio has no output to count', async () => {
  const api = endpoint('audio.speech').api
  expect(await api.promptTokens!({ input: story, instructions: 'Calm.' })).toBe(await countTextsTokens([story, 'Calm.']))
  expect(api.usage!.requestedUnits!({ input: 'café 🙂' })).toEqual({ unit: 'character', units: 6, unit_variant: '' })
  expect(await api.usage!.countOutputTokens({})).toBe(0)
  // An audio answer reports nothing (the gateway counts); the SSE stream's done event reports tokens.
  expect(api.usage!.read(undefined, { input: 'hi' })).toBeUndefined()
  expect(api.usage!.read({ input_tokens: 14, output_tokens: 101, total_tokens: 115 }, { input: 'hi' })).toMatchObject({
    prompt_tokens: 14,
    completion_tokens: 101,
    unit: 'character',
    units: 2,
  })
})

test('moderations: the texts of every input shape are counted, images are not; the answer reports no usage', async () => {
  const api = endpoint('moderations').api
  const parts = [
    { type: 'text', text: story },
    { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
  ]
  expect(await api.promptTokens!({ input: story })).toBe(await countTextsTokens([story]))
  expect(await api.promptTokens!({ input: [story, 'Calm.'] })).toBe(await countTextsTokens([story, 'Calm.']))
  expect(await api.promptTokens!({ input: parts })).toBe(await countTextsTokens([story]))
  expect(api.usage!.read(undefined, { input: story })).toBeUndefined()
  expect(api.guardedTexts).toBeNull()
})

test('rerank: the query and every document are counted; the reported total is input, none is output', async () => {
  const api = endpoint('rerank').api
  expect(await api.promptTokens!({ query: 'q', documents: [story, { text: 'Calm.' }] })).toBe(await countTextsTokens(['q', story, 'Calm.']))
  expect(api.usage!.read({ total_tokens: 42 }, {})).toMatchObject({ prompt_tokens: 42, completion_tokens: 0, total_tokens: 42, estimated: false })
  expect(api.usage!.read({ total_tokens: 42 }, {})).not.toHaveProperty('unit')
  expect(api.usage!.read(undefined, {})).toBeUndefined()
  // Cohere bills search units (a query with up to 100 documents), priced per unit.
  expect(api.usage!.read({ search_units: 2 }, {})).toMatchObject({ prompt_tokens: 0, unit: 'search_unit', units: 2, unit_variant: '' })
})

test('speech to text: per audio second from the reported duration or verbose_json, by tokens when reported; the prompt counted', async () => {
  const api = endpoint('audio.transcriptions').api
  const usage = api.usage!
  expect(usage.read({ type: 'duration', seconds: 13 }, {})).toMatchObject({ prompt_tokens: 0, unit: 'audio_second', units: 13 })
  expect(usage.read(undefined, {}, { text: 'x', duration: 12.5 })).toMatchObject({ unit: 'audio_second', units: 12.5 })
  const tokens = usage.read({ type: 'tokens', input_tokens: 140, output_tokens: 32, total_tokens: 172 }, {})
  expect(tokens).toMatchObject({ prompt_tokens: 140, completion_tokens: 32, total_tokens: 172 })
  expect(tokens).not.toHaveProperty('unit')
  expect(usage.read(undefined, {}, { text: 'x' })).toBeUndefined()
  expect(await api.promptTokens!({ prompt: 'hello there' })).toBeGreaterThan(0)
  expect(usage.requestedUnits).toBeNull()
  expect(endpoint('audio.translations').api.streamCodec).toBeNull()
})

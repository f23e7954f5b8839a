import OpenAI from 'openai'
import { describe, expect, test } from 'bun:test'
import { useGatewaySuite } from '../helpers/gateway-suite.ts'

const _MASTER = 'master-key-for-tests-0123456789abcdef'

const WEATHER_SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' }, celsius: { type: 'integer' }, sky: { type: 'string', enum: ['sunny', 'cloudy'] }, tags: { type: 'array', items: { type: 'string' } } },
  required: ['city', 'celsius', 'sky', 'tags'],
  additionalProperties: false,
}
const EXPECTED = { city: 'Paris', celsius: 21, sky: 'sunny', tags: ['Paris'] }
const MODELS = { openai: 'openai/gpt-4o', anthropic: 'anthropic/claude-sonnet-4-5', gemini: 'gemini/gemini-2.5-flash' } as const
type Family = keyof typeof MODELS
const FAMILIES = Object.keys(MODELS) as Family[]
const messages = [{ role: 'user' as const, content: 'Weather in Paris as JSON' }]

const t = useGatewaySuite({ families: ['openai', 'anthropic', 'gemini'] })

const responseFormat = { type: 'json_schema' as const, json_schema: { name: 'weather', strict: true, schema: WEATHER_SCHEMA } }

describe.each(FAMILIES)('%s target', (family) => {
  test('chat json_schema: parse returns the object', async () => {
    const completion = await t.openai.chat.completions.parse({ model: MODELS[family], messages, response_format: responseFormat })
    expect(completion.choices[0]!.message.parsed).toEqual(EXPECTED)
  })

  test('chat json_schema, streamed: the final completion parses', async () => {
    const stream = t.openai.chat.completions.stream({ model: MODELS[family], messages, response_format: responseFormat })
    const final = await stream.finalChatCompletion()
    expect(final.choices[0]!.message.parsed).toEqual(EXPECTED)
  })

  test('chat json_object: the answer is a JSON object', async () => {
    const completion = await t.openai.chat.completions.create({ model: MODELS[family], messages, response_format: { type: 'json_object' } })
    const content = completion.choices[0]!.message.content!
    expect(typeof JSON.parse(content)).toBe('object')
  })

  test('Responses text.format json_schema: responses.parse returns the object', async () => {
    const response = await t.openai.responses.parse({
      model: MODELS[family],
      input: 'Weather in Paris as JSON',
      text: { format: { type: 'json_schema', name: 'weather', strict: true, schema: WEATHER_SCHEMA } },
    })
    expect(response.output_parsed).toEqual(EXPECTED)
  })

  test('Responses text.format json_schema, streamed: the final response parses', async () => {
    const stream = t.openai.responses.stream({
      model: MODELS[family],
      input: 'Weather in Paris as JSON',
      text: { format: { type: 'json_schema', name: 'weather', strict: true, schema: WEATHER_SCHEMA } },
    })
    const final = await stream.finalResponse()
    expect(JSON.parse(final.output_text)).toEqual(EXPECTED)
  })

  test('/v1/messages output_config.format: messages.parse returns the object', async () => {
    const message = await t.claude.messages.parse({ model: MODELS[family], max_tokens: 256, messages, output_config: { format: { type: 'json_schema', schema: WEATHER_SCHEMA } } })
    expect(message.parsed_output as unknown).toEqual(EXPECTED)
  })
})

describe('what reaches the Anthropic upstream', () => {
  test('chat json_schema becomes output_config.format with the schema, and no response_format', async () => {
    await t.openai.chat.completions.create({ model: MODELS.anthropic, messages, response_format: responseFormat })
    const sent = t.anthropicMock.requests.at(-1)!.body
    expect(sent.output_config).toEqual({ format: { type: 'json_schema', schema: WEATHER_SCHEMA } })
    expect(sent.response_format).toBeUndefined()
  })

  test('a schema with bounds and open objects (as OpenAI clients send) is prepared as Anthropic takes it', async () => {
    const bounded = {
      type: 'object',
      properties: { city: { type: 'string', maxLength: 40 }, celsius: { type: 'integer', minimum: -90, maximum: 60 } },
      required: ['city', 'celsius'],
    }
    const completion = await t.openai.chat.completions.create({
      model: MODELS.anthropic,
      messages,
      response_format: { type: 'json_schema', json_schema: { name: 'w', schema: bounded } },
    })
    expect(JSON.parse(completion.choices[0]!.message.content!)).toEqual({ city: 'Paris', celsius: 21 })
    const sent = t.anthropicMock.requests.at(-1)!.body.output_config.format.schema
    expect(sent.additionalProperties).toBe(false)
    expect(sent.properties.celsius).toEqual({ type: 'integer', description: '{minimum: -90, maximum: 60}' })
  })

  test('json_object becomes an instruction to answer with one JSON object', async () => {
    await t.openai.chat.completions.create({ model: MODELS.anthropic, messages: [{ role: 'system', content: 'Be brief.' }, ...messages], response_format: { type: 'json_object' } })
    const sent = t.anthropicMock.requests.at(-1)!.body
    expect(sent.output_config).toBeUndefined()
    expect(sent.system).toStartWith('Be brief.')
    expect(sent.system).toContain('JSON object')
  })

  test('response_format text is no structured output at all', async () => {
    await t.openai.chat.completions.create({ model: MODELS.anthropic, messages, response_format: { type: 'text' } })
    expect(t.anthropicMock.requests.at(-1)!.body.output_config).toBeUndefined()
  })
})

describe('targets that cannot honour a schema', () => {
  test('an Anthropic model older than structured outputs: 400 unsupported_parameter before any upstream call, on chat and Responses', async () => {
    const calls = t.anthropicMock.requests.length
    const chat = await t.openai.chat.completions.create({ model: 'anthropic/claude-3-5-haiku-20241022', messages, response_format: responseFormat }).catch((e: unknown) => e)
    expect(chat).toBeInstanceOf(OpenAI.BadRequestError)
    expect((chat as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('unsupported_parameter')
    expect((chat as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('response_format')
    const responses = await t.openai.responses
      .create({ model: 'anthropic/claude-3-5-haiku-20241022', input: 'x', text: { format: { type: 'json_schema', name: 'w', schema: WEATHER_SCHEMA } } })
      .catch((e: unknown) => e)
    expect(responses).toBeInstanceOf(OpenAI.BadRequestError)
    expect((responses as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('unsupported_parameter')
    expect(t.anthropicMock.requests.length).toBe(calls)
  })

  test('the same model without structured output still works', async () => {
    const completion = await t.openai.chat.completions.create({ model: 'anthropic/claude-3-5-haiku-20241022', messages })
    expect(completion.choices[0]!.message.content).toBeTruthy()
  })
})

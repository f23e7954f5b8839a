import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { GatewayError } from '../../../src/errors/gateway-error.ts'
import { SseParser } from '../../../src/pipeline/sse.ts'
import type { AdapterCall, ProviderInstance } from '../../../src/providers/types.ts'
import { upstreamAuthFor } from '../../../src/providers/upstream-auth.ts'
import { PROVIDER_TYPES } from '../../../src/config/provider-catalog.ts'
import { BEDROCK_TEXT, CONVERSE_USAGE, eventMessage, type MockBedrock, startMockBedrock, THINKING_SIGNATURE } from '../../../test/helpers/mock-bedrock-upstream.ts'
import { answered, makeContext } from '../../../test/helpers/plugin-harness.ts'
import { CHAT_CONVERSATION, WEATHER_TOOL } from '../../../test/helpers/tool-conversation.ts'
import { bedrockAdapter } from './adapter.ts'
import { anthropicModelName, isAnthropicModel } from './anthropic-models.ts'
import { chatToConverseRequest } from './converse-request.ts'
import { chatUsage, converseToChatCompletion, finishReason } from './converse-response.ts'
import { ConverseStreamTranslator, converseStreamToChat } from './converse-stream.ts'

const KEY = { accessKeyId: 'AKIABEDROCKADAPTER', secretAccessKey: 'bedrock/adapter/secret/key' }

describe('Bedrock model ids', () => {
  test('Anthropic models, cross-region inference profiles included', () => {
    for (const id of [
      'anthropic.claude-sonnet-4-20250514-v1:0',
      'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
      'global.anthropic.claude-haiku-4-5-20251001-v1:0',
      'us-gov.anthropic.claude-3-5-haiku-20241022-v1:0',
    ])
      expect(isAnthropicModel(id)).toBe(true)
    for (const id of ['meta.llama3-3-70b-instruct-v1:0', 'amazon.nova-pro-v1:0', 'us.amazon.nova-lite-v1:0', 'claude-sonnet-4']) expect(isAnthropicModel(id)).toBe(false)
    expect(anthropicModelName('us.anthropic.claude-sonnet-4-5-20250929-v1:0')).toBe('claude-sonnet-4-5-20250929')
  })
})

describe('chat → Converse', () => {
  test('system, alternating turns, images as bytes, tool uses and results, tools and choice', () => {
    const messages = CHAT_CONVERSATION.map((m) => (m.role === 'user' && Array.isArray(m.content) ? { ...m, content: m.content.slice(0, 2) } : m))
    const req = chatToConverseRequest(
      { messages, tools: [WEATHER_TOOL], tool_choice: 'required', max_tokens: 100, temperature: 0.2, stop: ['END'] },
      'meta.llama3-3-70b-instruct-v1:0',
    ) as any
    expect(req.system).toEqual([{ text: 'Be brief.' }])
    expect(req.messages).toEqual([
      { role: 'user', content: [{ text: 'Weather?' }, { image: { format: 'png', source: { bytes: 'AAAA' } } }] },
      {
        role: 'assistant',
        content: [
          { text: 'Checking.' },
          { toolUse: { toolUseId: 'c1', name: 'get_weather', input: { city: 'Paris' } } },
          { toolUse: { toolUseId: 'c2', name: 'get_weather', input: { city: 'Rome' } } },
        ],
      },
      {
        role: 'user',
        content: [{ toolResult: { toolUseId: 'c1', content: [{ text: '18C' }] } }, { toolResult: { toolUseId: 'c2', content: [{ text: '25C' }] } }, { text: 'Thanks' }],
      },
    ])
    expect(req.inferenceConfig).toEqual({ maxTokens: 100, temperature: 0.2, stopSequences: ['END'] })
    expect(req.toolConfig).toEqual({
      tools: [{ toolSpec: { name: 'get_weather', description: 'Weather', inputSchema: { json: WEATHER_TOOL.function.parameters } } }],
      toolChoice: { any: {} },
    })
  })

  test('an image by http link is a 400 (Converse takes bytes or S3); an s3:// image is an s3Location', () => {
    const error = chatToConverseRequest({ messages: CHAT_CONVERSATION }, 'amazon.nova-pro-v1:0')
    expect(error).toBeInstanceOf(GatewayError)
    expect(error).toMatchObject({ status: 400, code: 'unsupported_content' })
    const s3 = chatToConverseRequest({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 's3://bucket/cat.jpg' } }] }] }, 'amazon.nova-pro-v1:0') as any
    expect(s3.messages[0].content).toEqual([{ image: { format: 'jpeg', source: { s3Location: { uri: 's3://bucket/cat.jpg' } } } }])
  })

  test('a JSON schema becomes outputConfig.textFormat (a string; closed for Claude), json_object an instruction', () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }
    const format = { type: 'json_schema', json_schema: { name: 'place', schema } }
    const claude = chatToConverseRequest({ messages: [{ role: 'user', content: 'Where?' }], response_format: format }, 'us.anthropic.claude-sonnet-4-5-20250929-v1:0') as any
    expect(claude.outputConfig.textFormat.type).toBe('json_schema')
    expect(JSON.parse(claude.outputConfig.textFormat.structure.jsonSchema.schema)).toMatchObject({ additionalProperties: false })
    expect(claude.outputConfig.textFormat.structure.jsonSchema.name).toBe('place')
    const nova = chatToConverseRequest({ messages: [{ role: 'user', content: 'Where?' }], response_format: format }, 'amazon.nova-pro-v1:0') as any
    expect(JSON.parse(nova.outputConfig.textFormat.structure.jsonSchema.schema)).toEqual(schema)
    const old = chatToConverseRequest({ messages: [{ role: 'user', content: 'Where?' }], response_format: format }, 'anthropic.claude-3-5-haiku-20241022-v1:0')
    expect(old).toMatchObject({ status: 400, code: 'unsupported_parameter' })
    const object = chatToConverseRequest({ messages: [{ role: 'user', content: 'Where?' }], response_format: { type: 'json_object' } }, 'amazon.nova-pro-v1:0') as any
    expect(object.system[0].text).toContain('JSON object')
  })

  test('reasoning_effort becomes Claude thinking with a budget below max tokens and no temperature', () => {
    const req = chatToConverseRequest(
      { messages: [{ role: 'user', content: 'Hi' }], reasoning_effort: 'high', temperature: 0.5 },
      'us.anthropic.claude-sonnet-4-20250514-v1:0',
    ) as any
    expect(req.additionalModelRequestFields).toEqual({ thinking: { type: 'enabled', budget_tokens: 4096 } })
    expect(req.inferenceConfig.maxTokens).toBeGreaterThan(4096)
    expect(req.inferenceConfig.temperature).toBeUndefined()
  })
})

describe('Converse → chat', () => {
  test('text, reasoning, tool calls, stop reasons and usage with cache tokens in OpenAI meaning', () => {
    const completion = converseToChatCompletion(
      {
        output: {
          message: {
            role: 'assistant',
            content: [
              { reasoningContent: { reasoningText: { text: 'Hmm.', signature: 'x' } } },
              { text: 'Checking.' },
              { toolUse: { toolUseId: 't1', name: 'get_weather', input: { city: 'Paris' } } },
            ],
          },
        },
        stopReason: 'tool_use',
        usage: CONVERSE_USAGE,
      },
      'm',
      'rid',
    ) as any
    expect(completion.choices[0]).toMatchObject({
      finish_reason: 'tool_calls',
      message: { content: 'Checking.', reasoning_content: 'Hmm.', tool_calls: [{ id: 't1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
    })
    expect(completion.usage).toMatchObject({ prompt_tokens: 125, completion_tokens: 12, total_tokens: 137, prompt_tokens_details: { cached_tokens: 100, cache_write_tokens: 5 } })
    expect(chatUsage({}).prompt_tokens).toBe(0)
  })

  const cases: [string, string][] = [
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['tool_use', 'tool_calls'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['guardrail_intervened', 'content_filter'],
    ['content_filtered', 'content_filter'],
    ['something_new', 'stop'],
  ]
  for (const [bedrock, openai] of cases) test(`${bedrock} → ${openai}`, () => expect(finishReason(bedrock)).toBe(openai))
})

async function chatEvents(stream: ReadableStream<Uint8Array>): Promise<any[]> {
  const parser = new SseParser()
  const out: any[] = []
  const reader = stream.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    for (const e of done ? parser.end() : parser.push(value)) out.push(e.data === '[DONE]' ? '[DONE]' : JSON.parse(e.data))
    if (done) return out
  }
}

function byteStream(messages: Uint8Array[], pieceSize = 3): ReadableStream<Uint8Array> {
  const all = Buffer.concat(messages)
  let at = 0
  return new ReadableStream({
    pull(controller) {
      if (at >= all.byteLength) return controller.close()
      controller.enqueue(new Uint8Array(all.subarray(at, at + pieceSize)))
      at += pieceSize
    },
  })
}

describe('ConverseStream → chat chunks', () => {
  test('messages split across reads: role, text, a tool call in pieces, finish, usage after metadata, [DONE]', async () => {
    const messages = [
      eventMessage('messageStart', { role: 'assistant' }),
      eventMessage('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Bon' } }),
      eventMessage('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'jour 🙂' } }),
      eventMessage('contentBlockStop', { contentBlockIndex: 0 }),
      eventMessage('contentBlockStart', { contentBlockIndex: 1, start: { toolUse: { toolUseId: 't1', name: 'get_weather' } } }),
      eventMessage('contentBlockDelta', { contentBlockIndex: 1, delta: { toolUse: { input: '{"ci' } } }),
      eventMessage('contentBlockDelta', { contentBlockIndex: 1, delta: { toolUse: { input: 'ty":"Paris"}' } } }),
      eventMessage('messageStop', { stopReason: 'tool_use' }),
      eventMessage('metadata', { usage: CONVERSE_USAGE, metrics: { latencyMs: 5 } }),
    ]
    const events = await chatEvents(await converseStreamToChat(byteStream(messages), new ConverseStreamTranslator(true, 'm', 'rid')))
    expect(events[0].choices[0].delta).toEqual({ role: 'assistant', content: '' })
    expect(
      events
        .slice(1, 3)
        .map((e) => e.choices[0].delta.content)
        .join(''),
    ).toBe('Bonjour 🙂')
    expect(events[3].choices[0].delta.tool_calls).toEqual([{ index: 0, id: 't1', type: 'function', function: { name: 'get_weather', arguments: '' } }])
    expect(
      events
        .slice(4, 6)
        .map((e) => e.choices[0].delta.tool_calls[0].function.arguments)
        .join(''),
    ).toBe('{"city":"Paris"}')
    expect(events[6].choices[0].finish_reason).toBe('tool_calls')
    expect(events[7]).toMatchObject({ choices: [], usage: { prompt_tokens: 125, completion_tokens: 12 } })
    expect(events[8]).toBe('[DONE]')
  })

  test('an exception message, a wrong checksum and a stream cut before messageStop each end with an error frame', async () => {
    const start = [eventMessage('messageStart', { role: 'assistant' }), eventMessage('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hi' } })]
    const { exceptionMessage } = await import('../../../test/helpers/mock-bedrock-upstream.ts')
    const thrown = await chatEvents(
      await converseStreamToChat(byteStream([...start, exceptionMessage('throttlingException', 'Slow down')]), new ConverseStreamTranslator(false, 'm', null)),
    )
    expect(thrown.at(-1).error).toMatchObject({ message: 'Slow down', code: 'throttlingException' })
    const corrupt = eventMessage('contentBlockDelta', { contentBlockIndex: 0, delta: { text: '!' } })
    corrupt[corrupt.byteLength - 2]! ^= 1
    const broken = await chatEvents(await converseStreamToChat(byteStream([...start, corrupt]), new ConverseStreamTranslator(false, 'm', null)))
    expect(broken.at(-1).error).toMatchObject({ code: 'upstream_invalid_stream' })
    expect(broken.at(-1).error.message).toContain('checksum')
    const cut = await chatEvents(await converseStreamToChat(byteStream(start), new ConverseStreamTranslator(false, 'm', null)))
    expect(cut.at(-1).error).toMatchObject({ code: 'stream_interrupted' })
    const half = await chatEvents(await converseStreamToChat(byteStream([...start, corrupt.subarray(0, 20)]), new ConverseStreamTranslator(false, 'm', null)))
    expect(half.at(-1).error).toMatchObject({ code: 'upstream_invalid_stream' })
  })
})

describe('against the mock Bedrock (SigV4 verified)', () => {
  let bedrock: MockBedrock
  beforeAll(() => {
    bedrock = startMockBedrock({ region: 'eu-west-1', service: 'bedrock', keys: { [KEY.accessKeyId]: { secret: KEY.secretAccessKey } } })
  })
  afterAll(() => bedrock.stop())

  const provider = (over: { region?: string; secret?: string } = {}): ProviderInstance => ({
    name: 'bedrock',
    type: 'bedrock',
    baseUrl: bedrock.url,
    staticModels: ['us.anthropic.claude-sonnet-4-5-20250929-v1:0'],
    nativeResponses: false,
    region: over.region ?? 'eu-west-1',
    auth: upstreamAuthFor('bedrock', PROVIDER_TYPES.bedrock, {
      type: 'bedrock',
      models: [],
      region: over.region ?? 'eu-west-1',
      aws: { access_key_id: KEY.accessKeyId, secret_access_key: over.secret ?? KEY.secretAccessKey },
    }),
  })
  const call = (
    model: string,
    body: Record<string, unknown>,
    p = provider(),
    endpoint: 'chat.completions' | 'messages' = 'chat.completions',
    headers: Record<string, string> = {},
  ): AdapterCall => ({
    provider: p,
    target: { providerName: 'bedrock', providerType: 'bedrock', model, selector: `bedrock/${model}` },
    body: { ...body, model },
    ctx: makeContext({ body, endpoint, headers }),
    attemptKind: 'primary',
    limits: { ttfbMs: 5000, idleMs: 5000, maxResponseBytes: 1 << 20, secrets: [KEY.secretAccessKey] },
  })

  test('Converse: a signed call to /model/{id}/converse, the id with ":" encoded as one segment', async () => {
    const model = 'us.meta.llama3-3-70b-instruct-v1:0'
    const res = answered(await bedrockAdapter.chatCompletions(call(model, { messages: [{ role: 'user', content: 'Hi' }] })))
    const body = (await res.json()) as any
    expect(body.choices[0].message.content).toBe(BEDROCK_TEXT)
    expect(body.usage.prompt_tokens).toBe(125)
    expect(bedrock.requests.at(-1)!.path).toBe('/model/us.meta.llama3-3-70b-instruct-v1%3A0/converse')
  })

  test('ConverseStream: the binary event stream decoded as it arrives into chat chunks', async () => {
    const res = answered(
      await bedrockAdapter.chatCompletions(call('amazon.nova-pro-v1:0', { messages: [{ role: 'user', content: 'Hi' }], stream: true, stream_options: { include_usage: true } })),
    )
    expect(res.headers.get('content-type')).toContain('text/event-stream')
    const events = await chatEvents(res.body!)
    expect(
      events
        .filter((e) => e !== '[DONE]' && e.choices[0]?.delta?.content)
        .map((e) => e.choices[0].delta.content)
        .join(''),
    ).toBe(BEDROCK_TEXT)
    expect(events.at(-2).usage).toMatchObject({ prompt_tokens: 125, prompt_tokens_details: { cached_tokens: 100 } })
    expect(bedrock.requests.at(-1)!.headers.accept).toBe('application/vnd.amazon.eventstream')
  })

  test('a wrong region or secret is refused by the mock as AWS refuses it, reported as the gateway credential problem', async () => {
    for (const p of [provider({ region: 'us-east-1' }), provider({ secret: 'not-the-secret' })]) {
      const result = await bedrockAdapter.chatCompletions(call('amazon.nova-pro-v1:0', { messages: [{ role: 'user', content: 'Hi' }] }, p))
      expect(result).toBeInstanceOf(GatewayError)
      expect(result).toMatchObject({ status: 502, code: 'InvalidSignatureException', provider: 'bedrock' })
    }
  })

  test('errors keep their meaning: throttling 429 with its code, validation 400', async () => {
    expect(await bedrockAdapter.chatCompletions(call('amazon.nova-throttled-v1:0', { messages: [{ role: 'user', content: 'Hi' }] }))).toMatchObject({
      status: 429,
      code: 'ThrottlingException',
    })
    const invalid = await bedrockAdapter.chatCompletions(call('amazon.nova-pro-v1:0', { messages: [{ role: 'assistant', content: 'Hi' }] }))
    expect(invalid).toMatchObject({ status: 400, code: 'ValidationException' })
    expect((invalid as GatewayError).message).toContain('must start with a user message')
  })

  test('Messages for Claude go natively through InvokeModel: anthropic_version and betas in the body, thinking signatures intact', async () => {
    const model = 'us.anthropic.claude-thinking-v1:0'
    const body = { messages: [{ role: 'user', content: 'Hi' }], max_tokens: 2000, thinking: { type: 'enabled', budget_tokens: 1024 } }
    const res = answered(await bedrockAdapter.messages!(call(model, body, provider(), 'messages', { 'anthropic-beta': 'interleaved-thinking-2025-05-14' })))
    const message = (await res.json()) as any
    expect(message.content[0]).toEqual({ type: 'thinking', thinking: 'The user greets me.', signature: 'sig_mock' })
    const sent = bedrock.requests.at(-1)!
    expect(sent.path).toBe('/model/us.anthropic.claude-thinking-v1%3A0/invoke')
    expect(sent.body).toEqual({ anthropic_version: 'bedrock-2023-05-31', ...body, anthropic_beta: ['interleaved-thinking-2025-05-14'] })
  })

  test('Messages streams: each chunk event becomes the Anthropic event it carries, thinking and signature deltas included', async () => {
    const res = answered(
      await bedrockAdapter.messages!(
        call('anthropic.claude-thinking-v1:0', { messages: [{ role: 'user', content: 'Hi' }], max_tokens: 2000, stream: true }, provider(), 'messages'),
      ),
    )
    const text = await res.text()
    const events = new SseParser().push(new TextEncoder().encode(text))
    expect(events.map((e) => e.event)).toContain('message_start')
    const signature = events.find((e) => e.data.includes('signature_delta'))
    expect(JSON.parse(signature!.data)).toEqual({ type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig_mock' } })
    const stop = JSON.parse(events.at(-1)!.data)
    expect(stop.type).toBe('message_stop')
    expect(stop['amazon-bedrock-invocationMetrics']).toMatchObject({ inputTokenCount: 20 })
  })

  test('the adapter serves Messages natively only for Anthropic models', () => {
    expect(bedrockAdapter.speaksNatively!('messages', provider(), 'us.anthropic.claude-sonnet-4-20250514-v1:0')).toBe(true)
    expect(bedrockAdapter.speaksNatively!('messages', provider(), 'amazon.nova-pro-v1:0')).toBe(false)
  })

  test('the model list is the configured one; it fails when the credentials cannot be had', async () => {
    expect(await bedrockAdapter.listModels(provider(), AbortSignal.timeout(5000))).toEqual(['us.anthropic.claude-sonnet-4-5-20250929-v1:0'])
  })

  test('the reasoning of a Converse answer with thinking becomes reasoning_content; the signature stays with Bedrock', async () => {
    const res = answered(
      await bedrockAdapter.chatCompletions(call('us.anthropic.claude-sonnet-4-20250514-v1:0', { messages: [{ role: 'user', content: 'Hi' }], reasoning_effort: 'low' })),
    )
    const body = (await res.json()) as any
    expect(body.choices[0].message.reasoning_content).toBe('Thinking it over.')
    expect(JSON.stringify(body)).not.toContain(THINKING_SIGNATURE)
  })
})

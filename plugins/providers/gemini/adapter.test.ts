import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { SseParser } from '../../../src/pipeline/sse.ts'
import type { AdapterCall } from '../../../src/providers/types.ts'
import { GatewayError } from '../../../src/errors/gateway-error.ts'
import { GEMINI_SIGNATURE, GEMINI_TEXT, geminiEmbeddingValues, startMockGemini, type MockGemini } from '../../../test/helpers/mock-gemini-upstream.ts'
import { answered, makeContext } from '../../../test/helpers/plugin-harness.ts'
import { CHAT_CONVERSATION } from '../../../test/helpers/tool-conversation.ts'
import { geminiAdapter, geminiUpstreamError } from './adapter.ts'
import { chatToGeminiRequest, SKIP_SIGNATURE } from './request.ts'
import { blockedPromptError, chatUsage, finishReason, geminiToChatCompletion } from './response.ts'
import { GeminiStreamTranslator, geminiStreamToChat } from './stream.ts'
import { ToolCallMemory } from './tool-call-memory.ts'

const weatherTool = {
  type: 'function',
  function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, additionalProperties: false } },
}

describe('chat → generateContent request', () => {
  test('system instruction, roles, images, tool calls and tool results named through their call', () => {
    const [system, ...rest] = CHAT_CONVERSATION
    const req = chatToGeminiRequest(
      { messages: [system, { role: 'developer', content: [{ type: 'text', text: 'Use metric.' }] }, ...rest] },
      'gemini-2.5-flash',
      new ToolCallMemory(),
    )
    expect(req.systemInstruction).toEqual({ parts: [{ text: 'Be brief.\n\nUse metric.' }] })
    const weather = (city: string) => ({ name: 'get_weather', args: { city } })
    const result = (output: string) => ({ functionResponse: { name: 'get_weather', response: { output } } })
    expect(req.contents).toEqual([
      { role: 'user', parts: [{ text: 'Weather?' }, { inlineData: { mimeType: 'image/png', data: 'AAAA' } }, { fileData: { mimeType: 'image/png', fileUri: 'https://x/y.png' } }] },
      { role: 'model', parts: [{ text: 'Checking.' }, { functionCall: weather('Paris'), thoughtSignature: SKIP_SIGNATURE }, { functionCall: weather('Rome') }] },
      { role: 'user', parts: [result('18C'), result('25C'), { text: 'Thanks' }] },
    ])
  })

  test('signatures carried on the call or remembered by its id; consecutive user turns merged; JSON tool output parsed', () => {
    const memory = new ToolCallMemory()
    memory.remember('call_b', { name: 'get_weather', signature: 'sig-remembered' })
    const req = chatToGeminiRequest(
      {
        messages: [
          { role: 'user', content: 'Weather?' },
          { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/y.webp' } }] },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' }, extra_content: { google: { thought_signature: 'sig-carried' } } },
              { id: 'call_x', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_a', content: '{"temp":18}' },
          { role: 'tool', tool_call_id: 'call_x', content: 'sunny' },
          { role: 'assistant', content: 'Done.', tool_calls: [{ id: 'call_b', type: 'function', function: { name: 'get_weather', arguments: '' } }] },
        ],
      },
      'gemini-2.5-flash',
      memory,
    )
    expect(req.contents).toEqual([
      { role: 'user', parts: [{ text: 'Weather?' }, { fileData: { mimeType: 'image/webp', fileUri: 'https://x/y.webp' } }] },
      {
        role: 'model',
        parts: [
          { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'sig-carried' },
          { functionCall: { name: 'get_weather', args: { city: 'Rome' } } },
        ],
      },
      {
        role: 'user',
        parts: [{ functionResponse: { name: 'get_weather', response: { output: { temp: 18 } } } }, { functionResponse: { name: 'get_weather', response: { output: 'sunny' } } }],
      },
      { role: 'model', parts: [{ text: 'Done.' }, { functionCall: { name: 'get_weather', args: {} }, thoughtSignature: 'sig-remembered' }] },
    ])
  })

  test('a replayed call whose signature the gateway never saw gets the documented skip value on the first call only', () => {
    const req = chatToGeminiRequest(
      {
        messages: [
          { role: 'user', content: 'x' },
          {
            role: 'assistant',
            tool_calls: [
              { id: 'a', function: { name: 'f', arguments: '{}' } },
              { id: 'b', function: { name: 'f', arguments: '{}' } },
            ],
          },
        ],
      },
      'gemini-3-pro-preview',
      new ToolCallMemory(),
    )
    const parts = (req.contents as any[])[1].parts
    expect(parts[0].thoughtSignature).toBe(SKIP_SIGNATURE)
    expect(parts[1].thoughtSignature).toBeUndefined()
  })

  test('tool results for ids the history does not show are named from memory', () => {
    const memory = new ToolCallMemory()
    memory.remember('call_m', { name: 'lookup' })
    const req = chatToGeminiRequest({ messages: [{ role: 'tool', tool_call_id: 'call_m', content: 'ok' }] }, 'm', memory)
    expect((req.contents as any[])[0].parts[0].functionResponse.name).toBe('lookup')
  })

  test('tools, tool_choice and generation settings', () => {
    const base = { messages: [{ role: 'user', content: 'x' }], tools: [weatherTool, { type: 'custom', custom: { name: 'ApplyPatch' } }] }
    const req = chatToGeminiRequest(
      {
        ...base,
        tool_choice: 'required',
        temperature: 0.2,
        top_p: 0.9,
        n: 2,
        seed: 7,
        max_completion_tokens: 99,
        stop: 'END',
        presence_penalty: 0.1,
        frequency_penalty: 0.2,
        logprobs: true,
        top_logprobs: 3,
        response_format: { type: 'json_schema', json_schema: { name: 's', schema: { type: 'object' } } },
      },
      'gemini-2.5-flash',
      new ToolCallMemory(),
    )
    expect(req.tools).toEqual([{ functionDeclarations: [{ name: 'get_weather', description: 'Weather', parametersJsonSchema: weatherTool.function.parameters }] }])
    expect(req.toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY' } })
    expect(req.generationConfig).toEqual({
      temperature: 0.2,
      topP: 0.9,
      candidateCount: 2,
      seed: 7,
      presencePenalty: 0.1,
      frequencyPenalty: 0.2,
      maxOutputTokens: 99,
      stopSequences: ['END'],
      responseLogprobs: true,
      logprobs: 3,
      responseMimeType: 'application/json',
      responseJsonSchema: { type: 'object' },
    })
    const choose = (tool_choice: unknown) => chatToGeminiRequest({ ...base, tool_choice }, 'm', new ToolCallMemory()).toolConfig
    expect(choose('auto')).toEqual({ functionCallingConfig: { mode: 'AUTO' } })
    expect(choose('none')).toEqual({ functionCallingConfig: { mode: 'NONE' } })
    expect(choose({ type: 'function', function: { name: 'get_weather' } })).toEqual({ functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] } })
    expect(choose(undefined)).toBeUndefined()
  })

  test('reasoning_effort: a thinking budget on Gemini 2.5, a thinking level on Gemini 3, none turns thinking off', () => {
    const gen = (model: string, reasoning_effort: string) =>
      chatToGeminiRequest({ messages: [{ role: 'user', content: 'x' }], reasoning_effort }, model, new ToolCallMemory()).generationConfig as any
    expect(gen('gemini-2.5-flash', 'medium').thinkingConfig).toEqual({ thinkingBudget: 8192, includeThoughts: true })
    expect(gen('gemini-2.5-flash', 'none').thinkingConfig).toEqual({ thinkingBudget: 0 })
    expect(gen('gemini-3-pro-preview', 'low').thinkingConfig).toEqual({ thinkingLevel: 'low', includeThoughts: true })
    expect(gen('gemini-3-pro-preview', 'high').thinkingConfig).toEqual({ thinkingLevel: 'high', includeThoughts: true })
  })
})

describe('finish reason table, cell by cell', () => {
  const cases: [string, boolean, string][] = [
    ['STOP', false, 'stop'],
    ['STOP', true, 'tool_calls'],
    ['MAX_TOKENS', false, 'length'],
    ['MAX_TOKENS', true, 'length'],
    ['SAFETY', false, 'content_filter'],
    ['RECITATION', false, 'content_filter'],
    ['BLOCKLIST', false, 'content_filter'],
    ['PROHIBITED_CONTENT', false, 'content_filter'],
    ['SPII', false, 'content_filter'],
    ['LANGUAGE', false, 'content_filter'],
    ['IMAGE_SAFETY', false, 'content_filter'],
    ['OTHER', false, 'content_filter'],
    ['MALFORMED_FUNCTION_CALL', false, 'stop'],
    ['UNEXPECTED_TOOL_CALL', false, 'stop'],
    ['TOO_MANY_TOOL_CALLS', false, 'stop'],
    ['FINISH_REASON_UNSPECIFIED', false, 'stop'],
    ['SOMETHING_NEW', false, 'stop'],
  ]
  for (const [gemini, called, openai] of cases) test(`${gemini}${called ? ' with a function call' : ''} → ${openai}`, () => expect(finishReason(gemini, called)).toBe(openai))
})

describe('usage table, cell by cell', () => {
  const usage = chatUsage({
    promptTokenCount: 293,
    cachedContentTokenCount: 200,
    toolUsePromptTokenCount: 7,
    candidatesTokenCount: 20,
    thoughtsTokenCount: 110,
    totalTokenCount: 430,
  }) as any
  test('prompt_tokens = prompt + tool-use prompt', () => expect(usage.prompt_tokens).toBe(300))
  test('completion_tokens = candidates + thoughts', () => expect(usage.completion_tokens).toBe(130))
  test('total_tokens = totalTokenCount', () => expect(usage.total_tokens).toBe(430))
  test('prompt_tokens_details.cached_tokens = cachedContentTokenCount', () => expect(usage.prompt_tokens_details.cached_tokens).toBe(200))
  test('completion_tokens_details.reasoning_tokens = thoughts', () => expect(usage.completion_tokens_details.reasoning_tokens).toBe(110))
  test('missing counts are zero and the total is their sum', () =>
    expect(chatUsage({ promptTokenCount: 3, candidatesTokenCount: 2 })).toMatchObject({ prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 }))
})

describe('generateContent answer → chat completion', () => {
  test('text, thoughts, function calls with gateway ids remembered with their signatures', () => {
    const memory = new ToolCallMemory()
    const completion = geminiToChatCompletion(
      {
        candidates: [
          {
            content: {
              role: 'model',
              parts: [
                { text: 'Plan', thought: true },
                { text: 'Checking ' },
                { text: 'now.' },
                { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'sig1' },
              ],
            },
            finishReason: 'STOP',
            index: 0,
          },
        ],
        usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 3, totalTokenCount: 8 },
        modelVersion: 'gemini-2.5-flash',
        responseId: 'abc',
      },
      'gemini-2.5-flash',
      memory,
    ) as any
    expect(completion).toMatchObject({
      id: 'chatcmpl-abc',
      object: 'chat.completion',
      model: 'gemini-2.5-flash',
      usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 },
    })
    const choice = completion.choices[0]
    expect(choice.finish_reason).toBe('tool_calls')
    expect(choice.message).toMatchObject({ role: 'assistant', content: 'Checking now.', reasoning_content: 'Plan' })
    const call = choice.message.tool_calls[0]
    expect(call.id).toMatch(/^call_[A-Za-z0-9]{24}$/)
    expect(call).toMatchObject({ type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' }, extra_content: { google: { thought_signature: 'sig1' } } })
    expect(memory.recall(call.id)).toEqual({ name: 'get_weather', signature: 'sig1' })
  })

  test('a blocked prompt is a 400 content_filter error', () => {
    expect(blockedPromptError({ promptFeedback: { blockReason: 'SAFETY' } }, 'gemini')).toMatchObject({ status: 400, code: 'content_filter', provider: 'gemini' })
    expect(blockedPromptError({ candidates: [{}], promptFeedback: {} }, 'gemini')).toBeUndefined()
  })

  test('the memory forgets its oldest entries beyond its capacity', () => {
    const memory = new ToolCallMemory(2)
    memory.remember('a', { name: 'a' })
    memory.remember('b', { name: 'b' })
    memory.remember('c', { name: 'c' })
    expect([memory.recall('a'), memory.recall('b')?.name, memory.recall('c')?.name]).toEqual([undefined, 'b', 'c'])
  })
})

describe('stream translation', () => {
  const frames = async (sse: string, includeUsage = true) => {
    const body = new Response(sse).body!
    const text = await new Response(geminiStreamToChat(body, new GeminiStreamTranslator(includeUsage, 'gemini-2.5-flash', new ToolCallMemory()))).text()
    expect(text).not.toContain('\r')
    return text
      .trim()
      .split('\n\n')
      .map((f) => f.replace(/^data: /, ''))
  }
  const chunk = (parts: unknown[], extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts }, index: 0, ...extra }], usageMetadata: { promptTokenCount: 4, totalTokenCount: 4 }, responseId: 'r1', modelVersion: 'gemini-2.5-flash' })}\r\n\r\n`

  test('CRLF framing: role chunk, text deltas, a whole function call, tool_calls finish, usage, [DONE]', async () => {
    const last = `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'f', args: { a: 1 } }, thoughtSignature: 's' }] }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 4, candidatesTokenCount: 6, thoughtsTokenCount: 2, totalTokenCount: 12 }, responseId: 'r1' })}\r\n\r\n`
    const out = await frames(chunk([{ text: 'Hel' }]) + chunk([{ text: 'lo', thought: true }]) + last)
    expect(out.map((f) => (f === '[DONE]' ? f : (JSON.parse(f).choices[0]?.delta ?? 'usage')))).toEqual([
      { role: 'assistant', content: '' },
      { content: 'Hel' },
      { reasoning_content: 'lo' },
      {
        tool_calls: [
          { index: 0, id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'f', arguments: '{"a":1}' }, extra_content: { google: { thought_signature: 's' } } },
        ],
      },
      {},
      'usage',
      '[DONE]',
    ])
    expect(JSON.parse(out[4]!).choices[0].finish_reason).toBe('tool_calls')
    expect(JSON.parse(out[5]!)).toMatchObject({ id: 'chatcmpl-r1', choices: [], usage: { prompt_tokens: 4, completion_tokens: 8, total_tokens: 12 } })
  })

  test('without include_usage there is no usage chunk', async () => {
    const out = await frames(chunk([{ text: 'Hi' }], { finishReason: 'STOP' }), false)
    expect(out.at(-1)).toBe('[DONE]')
    expect(out.some((f) => f.includes('"choices":[]'))).toBe(false)
  })

  test('an error event ends the stream with an error frame', async () => {
    const out = await frames(chunk([{ text: 'Par' }]) + `data: {"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}\r\n\r\n`)
    expect(JSON.parse(out.at(-1)!)).toEqual({ error: { message: 'The model is overloaded.', type: 'server_error', param: null, code: 'UNAVAILABLE' } })
    expect(out).not.toContain('[DONE]')
  })

  test('a stream that closes before a finish reason is reported as interrupted', async () => {
    const out = await frames(chunk([{ text: 'Par' }]))
    expect(JSON.parse(out.at(-1)!).error.code).toBe('stream_interrupted')
  })
})

describe('upstream errors', () => {
  const call = { provider: { name: 'gemini' }, limits: { secrets: ['AIzaSecretKey123'] } } as unknown as AdapterCall
  const read = (status: number, error: Record<string, unknown>) => geminiUpstreamError(call)(status, { error }, JSON.stringify({ error }), new Headers())

  test('the status name is the code; 429 gets Retry-After from RetryInfo', () => {
    const e = read(429, { code: 429, message: 'Quota', status: 'RESOURCE_EXHAUSTED', details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '6.5s' }] })
    expect([e.status, e.type, e.code, e.headers['retry-after'], e.provider]).toEqual([429, 'rate_limit_error', 'RESOURCE_EXHAUSTED', '7', 'gemini'])
    expect(read(404, { code: 404, message: 'models/x is not found', status: 'NOT_FOUND' })).toMatchObject({ status: 404, code: 'NOT_FOUND', message: 'models/x is not found' })
  })

  test('a refused API key (400 API_KEY_INVALID) is reported as the gateway credential problem, the key scrubbed', () => {
    const e = read(400, { code: 400, message: 'API key not valid: AIzaSecretKey123', status: 'INVALID_ARGUMENT', details: [{ reason: 'API_KEY_INVALID' }] })
    expect(e.status).toBe(502)
    expect(e.message).not.toContain('AIzaSecretKey123')
  })
})

describe('against the mock Gemini API', () => {
  let mock: MockGemini
  beforeAll(() => {
    mock = startMockGemini('gemini-test-key')
  })
  afterAll(() => mock.stop())

  const provider = () => ({ name: 'gemini', type: 'gemini' as const, baseUrl: mock.url, apiKey: 'gemini-test-key', staticModels: [], nativeResponses: false })
  const call = (model: string, body: Record<string, unknown>): AdapterCall => ({
    provider: provider(),
    target: { providerName: 'gemini', providerType: 'gemini', model, selector: `gemini/${model}` },
    body: { ...body, model },
    ctx: makeContext({ body }),
    attemptKind: 'primary',
    limits: { ttfbMs: 5000, idleMs: 5000, maxResponseBytes: 1 << 20, secrets: ['gemini-test-key'] },
  })

  test('listModels keeps generateContent models without the models/ prefix', async () => {
    expect(await geminiAdapter.listModels(provider(), AbortSignal.timeout(5000))).toEqual(['gemini-2.5-flash', 'gemini-3-pro-preview'])
  })

  test('generateContent: the key in x-goog-api-key, the model in the path', async () => {
    const res = answered(await geminiAdapter.chatCompletions(call('gemini-2.5-flash', { messages: [{ role: 'user', content: 'Hi' }] })))
    expect(((await res.json()) as any).choices[0].message.content).toBe(GEMINI_TEXT)
    expect(mock.requests.at(-1)).toMatchObject({ path: '/v1beta/models/gemini-2.5-flash:generateContent', headers: { 'x-goog-api-key': 'gemini-test-key' } })
  })

  test('streamGenerateContent?alt=sse arrives as chat chunks with the characters intact', async () => {
    const res = answered(await geminiAdapter.chatCompletions(call('gemini-2.5-flash', { stream: true, messages: [{ role: 'user', content: 'Hi' }] })))
    expect(mock.requests.at(-1)!.search).toBe('?alt=sse')
    const parser = new SseParser()
    const events = [...parser.push(new Uint8Array(await res.arrayBuffer())), ...parser.end()]
    const text = events
      .filter((e) => e.data !== '[DONE]')
      .map((e) => JSON.parse(e.data).choices[0]?.delta?.content ?? '')
      .join('')
    expect(text).toBe(GEMINI_TEXT)
    expect(events.at(-1)!.data).toBe('[DONE]')
  })

  test('a Gemini 3 tool round trip: the signature and the function name come back on the next turn', async () => {
    const first = (await answered(
      await geminiAdapter.chatCompletions(call('gemini-3-tool', { messages: [{ role: 'user', content: 'Weather?' }], tools: [weatherTool] })),
    ).json()) as any
    const toolCall = first.choices[0].message.tool_calls[0]
    expect(first.choices[0].finish_reason).toBe('tool_calls')
    // The client replays the assistant turn without the extra field, as many agent frameworks do.
    const replayed = { id: toolCall.id, type: 'function', function: toolCall.function }
    const second = (await answered(
      await geminiAdapter.chatCompletions(
        call('gemini-3-tool', {
          messages: [
            { role: 'user', content: 'Weather?' },
            { role: 'assistant', content: null, tool_calls: [replayed] },
            { role: 'tool', tool_call_id: toolCall.id, content: '{"temp":18}' },
          ],
          tools: [weatherTool],
        }),
      ),
    ).json()) as any
    expect(second.choices[0].message.content).toBe('Result: {"output":{"temp":18}}')
    const sent = mock.requests.at(-1)!.body.contents
    expect(sent[1].parts[0]).toEqual({ functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: GEMINI_SIGNATURE })
    expect(sent[2].parts[0].functionResponse.name).toBe('get_weather')
  })

  test('embeddings: one input by embedContent, several by batchEmbedContents, in input order; usage counted by the gateway', async () => {
    const one = (await answered(await geminiAdapter.embeddings!(call('gemini-embedding-001', { input: 'solo' }))).json()) as any
    expect(mock.requests.at(-1)).toMatchObject({ path: '/v1beta/models/gemini-embedding-001:embedContent', body: { content: { parts: [{ text: 'solo' }] } } })
    expect(one.data).toEqual([{ object: 'embedding', index: 0, embedding: geminiEmbeddingValues('solo') }])
    expect(one.usage.prompt_tokens).toBeGreaterThan(0)
    const many = (await answered(await geminiAdapter.embeddings!(call('gemini-embedding-001', { input: ['x', 'y'], dimensions: 3 }))).json()) as any
    expect(mock.requests.at(-1)!.body.requests.map((r: any) => r.outputDimensionality)).toEqual([3, 3])
    expect(many.data.map((d: any) => d.embedding)).toEqual([geminiEmbeddingValues('x', 3), geminiEmbeddingValues('y', 3)])
  })

  test('embeddings: an answer without a vector per input is a 502, not a short list', async () => {
    const short = await geminiAdapter.embeddings!(call('embed-one-short', { input: ['x', 'y'] }))
    expect(short).toBeInstanceOf(GatewayError)
    expect(short).toMatchObject({ status: 502, code: 'upstream_invalid_response', provider: 'gemini' })
    expect((short as GatewayError).message).toContain('expected 2 embedding(s)')
  })

  test('errors keep their status: 404 on a stream (served without data:), 429 with Retry-After, blocked prompts', async () => {
    const missing = await geminiAdapter.chatCompletions(call('missing-model', { stream: true, messages: [{ role: 'user', content: 'x' }] }))
    expect(missing).toMatchObject({ status: 404, code: 'NOT_FOUND', provider: 'gemini' })
    const limited = await geminiAdapter.chatCompletions(call('rate-limited', { messages: [{ role: 'user', content: 'x' }] }))
    expect(limited).toMatchObject({ status: 429, headers: { 'retry-after': '7' } })
    const blocked = await geminiAdapter.chatCompletions(call('blocked', { messages: [{ role: 'user', content: 'x' }] }))
    expect(blocked).toMatchObject({ status: 400, code: 'content_filter' })
  })
})

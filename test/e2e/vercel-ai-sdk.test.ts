/**
 * The Vercel AI SDK (`ai` + `@ai-sdk/openai`) as a client, through both of its OpenAI models (`openai.chat` on
 * /v1/chat/completions, `openai.responses` on /v1/responses), against every upstream family: generateText and
 * streamText, a tool loop (the SDK runs the tool and sends its result back), and generateObject.
 */
import { createOpenAI } from '@ai-sdk/openai'
import { generateObject, generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai'
import { beforeAll, describe, expect, test } from 'bun:test'
import { ANTHROPIC_TEXT } from '../helpers/mock-anthropic-upstream.ts'
import { GEMINI_TEXT } from '../helpers/mock-gemini-upstream.ts'
import { RESPONSES_TEXT, TRICKY_TEXT } from '../helpers/mock-openai-upstream.ts'
import { useGatewaySuite } from '../helpers/gateway-suite.ts'

const _MASTER = 'master-key-for-tests-0123456789abcdef'

const MODELS = {
  openai: { text: 'openai/gpt-4o', tool: 'openai/tools' },
  anthropic: { text: 'anthropic/claude-sonnet-4-5', tool: 'anthropic/tool' },
  gemini: { text: 'gemini/gemini-2.5-flash', tool: 'gemini/gemini-2.5-flash-tool' },
} as const
type Family = keyof typeof MODELS
type Api = 'chat' | 'responses'

function expectedText(family: Family, api: Api): string {
  if (family === 'anthropic') return ANTHROPIC_TEXT
  if (family === 'gemini') return GEMINI_TEXT
  return api === 'responses' ? RESPONSES_TEXT : TRICKY_TEXT
}

const t = useGatewaySuite({ families: ['openai', 'anthropic', 'gemini'] })
let provider: ReturnType<typeof createOpenAI>
beforeAll(() => {
  provider = createOpenAI({ apiKey: t.master, baseURL: t.gw.baseURL })
})

const model = (api: Api, id: string) => (api === 'chat' ? provider.chat(id) : provider.responses(id))

/** A tool the SDK executes itself; it records each call so the test sees the loop really ran it. */
function weatherTool(calls: unknown[]) {
  return tool({
    description: 'Weather in a city',
    inputSchema: jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false }),
    execute: async (input) => {
      calls.push(input)
      return { temp: 18 }
    },
  })
}

const WEATHER_SCHEMA = jsonSchema<{ city: string; celsius: number; sky: 'sunny' | 'cloudy' }>({
  type: 'object',
  properties: { city: { type: 'string' }, celsius: { type: 'integer' }, sky: { type: 'string', enum: ['sunny', 'cloudy'] } },
  required: ['city', 'celsius', 'sky'],
  additionalProperties: false,
})

for (const api of ['chat', 'responses'] as const) {
  describe(`openai.${api}`, () => {
    for (const family of ['openai', 'anthropic', 'gemini'] as const) {
      describe(`${family} upstream`, () => {
        test('generateText', async () => {
          const result = await generateText({ model: model(api, MODELS[family].text), prompt: 'Weather in Paris?', maxRetries: 0 })
          expect(result.text).toBe(expectedText(family, api))
          expect(result.finishReason).toBe('stop')
          expect(result.usage.inputTokens).toBeGreaterThan(0)
        })

        test('streamText', async () => {
          const result = streamText({ model: model(api, MODELS[family].text), prompt: 'Weather in Paris?', maxRetries: 0 })
          let streamed = ''
          for await (const delta of result.textStream) streamed += delta
          expect(streamed).toBe(expectedText(family, api))
          expect(await result.finishReason).toBe('stop')
        })

        test('generateText with a tool: call, execute, answer with its result', async () => {
          const calls: unknown[] = []
          const result = await generateText({
            model: model(api, MODELS[family].tool),
            prompt: 'Weather in Paris?',
            tools: { get_weather: weatherTool(calls) },
            stopWhen: stepCountIs(3),
            maxRetries: 0,
          })
          expect(calls).toEqual([{ city: 'Paris' }])
          expect(result.steps.length).toBe(2)
          expect(result.steps[0]!.toolCalls[0]).toMatchObject({ toolName: 'get_weather', input: { city: 'Paris' } })
          expect(result.text).toStartWith('Result: ')
          expect(result.text).toContain('18')
        })

        test('streamText with a tool: call, execute, answer with its result', async () => {
          const calls: unknown[] = []
          const result = streamText({
            model: model(api, MODELS[family].tool),
            prompt: 'Weather in Paris?',
            tools: { get_weather: weatherTool(calls) },
            stopWhen: stepCountIs(3),
            maxRetries: 0,
          })
          let streamed = ''
          for await (const delta of result.textStream) streamed += delta
          expect(calls).toEqual([{ city: 'Paris' }])
          // The text of every step streams (Claude says "Let me check." before its call); the last step is the answer.
          expect(streamed).toEndWith(await result.text)
          expect(await result.text).toStartWith('Result: ')
          expect((await result.steps).length).toBe(2)
        })

        test('generateObject', async () => {
          const result = await generateObject({ model: model(api, MODELS[family].text), schema: WEATHER_SCHEMA, prompt: 'Weather in Paris as JSON', maxRetries: 0 })
          expect(result.object).toEqual({ city: 'Paris', celsius: 21, sky: 'sunny' })
        })
      })
    }
  })
}

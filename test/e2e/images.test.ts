/**
 * `POST /v1/images/generations` end to end with the official `openai` SDK against the mock OpenAI upstream: base64
 * and URL answers, the GPT image models' streamed partial images, the upstream's errors, and each request's audit
 * entry with its usage priced per image (DALL·E, by size and quality) or by tokens (gpt-image-1).
 */
import { describe, expect, test } from 'bun:test'
import OpenAI from 'openai'
import { useGatewaySuite } from '../helpers/gateway-suite.ts'
import { IMAGE_USAGE, MOCK_IMAGE, MOCK_IMAGE_B64 } from '../helpers/mock-openai-media.ts'
import { sseEvents } from '../helpers/sse-events.ts'

const t = useGatewaySuite()

async function usageOf(requestId: string | null) {
  const entry = await t.audit.entryFor(requestId!)
  return entry.usage!
}

describe('images.generations', () => {
  test('DALL·E: b64_json answer arrives intact; priced per image by size and quality', async () => {
    const { data, response } = await t.openai.images
      .generate({ model: 'openai/dall-e-3', prompt: 'a lighthouse', n: 1, size: '1792x1024', quality: 'hd', response_format: 'b64_json' })
      .withResponse()
    expect(Buffer.from(data.data![0]!.b64_json!, 'base64')).toEqual(Buffer.from(MOCK_IMAGE))
    expect(data.data![0]!.revised_prompt).toBe('A picture of a lighthouse')
    const seen = t.openaiMock.requests.at(-1)!
    expect(seen.path).toBe('/v1/images/generations')
    expect(seen.body).toMatchObject({ model: 'dall-e-3', size: '1792x1024', quality: 'hd' })
    const usage = await usageOf(response.headers.get('x-request-id'))
    expect(usage).toMatchObject({ unit: 'image', units: 1, unit_variant: '1792x1024/hd' })
    expect(usage.cost_usd).toBeCloseTo(0.12, 10)
  })

  test('DALL·E: url answers, n images at the default quality', async () => {
    const { data, response } = await t.openai.images.generate({ model: 'openai/dall-e-2', prompt: 'a cat', n: 3, size: '512x512', response_format: 'url' }).withResponse()
    expect(data.data!.map((d) => d.url)).toEqual([0, 1, 2].map((i) => `https://oaidalleapiprodscus.blob.core.windows.net/private/img-${i}.png?sig=mock`))
    const usage = await usageOf(response.headers.get('x-request-id'))
    expect(usage).toMatchObject({ unit: 'image', units: 3, unit_variant: '512x512/' })
    expect(usage.cost_usd).toBeCloseTo(3 * 0.018, 10)
  })

  test('gpt-image-1: priced by the tokens the upstream reported', async () => {
    const { data, response } = await t.openai.images.generate({ model: 'openai/gpt-image-1', prompt: 'a fox', quality: 'low' }).withResponse()
    expect(data.data![0]!.b64_json).toBe(MOCK_IMAGE_B64)
    expect(data.usage?.output_tokens).toBe(IMAGE_USAGE.output_tokens)
    const usage = await usageOf(response.headers.get('x-request-id'))
    expect(usage).toMatchObject({ input_tokens: IMAGE_USAGE.input_tokens, output_tokens: IMAGE_USAGE.output_tokens, unit: 'image', units: 1 })
    expect(usage.cost_usd).toBeCloseTo((IMAGE_USAGE.input_tokens * 5 + IMAGE_USAGE.output_tokens * 40) / 1e6, 10)
  })

  test('stream: partial images and the completed image arrive as OpenAI sent them; usage from the completed event', async () => {
    const stream = await t.openai.images.generate({ model: 'openai/gpt-image-1', prompt: 'a fox', stream: true, partial_images: 2 })
    const events: OpenAI.ImageGenStreamEvent[] = []
    for await (const event of stream) events.push(event)
    expect(events.map((e) => e.type)).toEqual(['image_generation.partial_image', 'image_generation.partial_image', 'image_generation.completed'])
    expect(events.map((e) => (e.type === 'image_generation.partial_image' ? e.partial_image_index : -1))).toEqual([0, 1, -1])
    expect(events.at(-1)!.b64_json).toBe(MOCK_IMAGE_B64)
    const list = await t.audit.eventually(
      () => t.audit.list({ path: '/v1/images/generations', limit: '1' }),
      (page) => page.entries[0]?.usage?.output_tokens === IMAGE_USAGE.output_tokens,
    )
    expect(list.entries[0]!.usage).toMatchObject({ input_tokens: IMAGE_USAGE.input_tokens, unit: 'image', units: 1 })
  })

  test('stream: event names on the wire; an upstream that breaks off ends the stream with an error event the SDK raises', async () => {
    const res = await fetch(`${t.gw.baseURL}/images/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.master}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/gpt-image-1', prompt: 'a fox', stream: true, partial_images: 1 }),
    })
    expect(res.headers.get('content-type')).toStartWith('text/event-stream')
    const events = sseEvents(await res.text())
    expect(events.map(([name]) => name)).toEqual(['image_generation.partial_image', 'image_generation.completed'])

    const broken = await t.openai.images.generate({ model: 'openai/gpt-image-broken', prompt: 'a fox', stream: true, partial_images: 2 })
    const seen: string[] = []
    const error = await (async () => {
      for await (const event of broken) seen.push(event.type)
    })().catch((e) => e)
    expect(seen).toEqual(['image_generation.partial_image'])
    expect(error).toBeInstanceOf(OpenAI.APIError)
  })

  test("the upstream's refusal reaches the SDK as a BadRequestError with OpenAI's code; nothing is priced", async () => {
    const error = await t.openai.images.generate({ model: 'openai/image-refused', prompt: 'something' }).catch((e) => e)
    expect(error).toBeInstanceOf(OpenAI.BadRequestError)
    expect(error.code).toBe('content_policy_violation')
    const entry = await t.audit.entryFor(error.headers.get('x-request-id'))
    expect(entry.status_code).toBe(400)
    expect(entry.usage?.cost_usd ?? 0).toBe(0)
  })

  test('a bad request is refused by the gateway in the GatewayError shape, audited', async () => {
    const error = await t.openai.images.generate({ model: 'openai/dall-e-3', prompt: 'x', n: 11 }).catch((e) => e)
    expect(error).toBeInstanceOf(OpenAI.BadRequestError)
    expect(error.message).toContain('at most 10 images')
    const missing = await t.openai.images.generate({ prompt: 'no model' } as never).catch((e) => e)
    expect(missing).toBeInstanceOf(OpenAI.BadRequestError)
    expect(missing.message).toContain('model')
    expect((await t.audit.entryFor(missing.headers.get('x-request-id'))).status_code).toBe(400)
  })
})

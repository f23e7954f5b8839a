/**
 * `POST /v1/images/generations` and `POST /v1/images/edits` end to end with the official `openai` SDK against the
 * mock OpenAI upstream: base64 and URL answers, the GPT image models' streamed partial images, the upstream's
 * errors, and each request's audit entry with its usage priced per image (DALL·E, by size and quality) or by tokens
 * (gpt-image-1). An edit's images and mask stream through as a multipart upload; the mock parses the form as OpenAI
 * does and records each file's size and SHA-256, and the audit entry keeps the same metadata, never the bytes.
 */
import { describe, expect, test } from 'bun:test'
import OpenAI, { toFile } from 'openai'
import { useGatewaySuite } from '../helpers/gateway-suite.ts'
import { IMAGE_USAGE, MOCK_IMAGE, MOCK_IMAGE_B64, type ReceivedForm } from '../helpers/mock-openai-media.ts'
import { sseEvents } from '../helpers/sse-events.ts'

// Bodies logged: an edit's audit entry then records its parts' metadata.
const t = useGatewaySuite({ env: { LOGGING_LOG_BODIES: 'true' } })

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

const sha256 = (bytes: Uint8Array) => new Bun.CryptoHasher('sha256').update(bytes).digest('hex')
const png = (fill: number, size = 40_000) => new Uint8Array(size).fill(fill)
const lastForm = () => t.openaiMock.requests.at(-1)!.body as ReceivedForm

describe('images.edits', () => {
  test('gpt-image-1: several images and a mask stream through intact; audit has their metadata; priced by tokens, n images', async () => {
    const first = png(1)
    const second = png(2, 70_001)
    const mask = png(3, 5_000)
    const { data, response } = await t.openai.images
      .edit({
        model: 'openai/gpt-image-1',
        prompt: 'put both in one picture',
        n: 2,
        quality: 'low',
        size: '1024x1024',
        background: 'transparent',
        input_fidelity: 'high',
        image: [await toFile(first, 'first.png', { type: 'image/png' }), await toFile(second, 'second.png', { type: 'image/png' })],
        mask: await toFile(mask, 'mask.png', { type: 'image/png' }),
      })
      .withResponse()
    expect(data.data!.map((d) => Buffer.from(d.b64_json!, 'base64'))).toEqual([Buffer.from(MOCK_IMAGE), Buffer.from(MOCK_IMAGE)])
    expect(t.openaiMock.requests.at(-1)!.path).toBe('/v1/images/edits')
    const form = lastForm()
    expect(form.fields).toMatchObject({ model: 'gpt-image-1', prompt: 'put both in one picture', n: '2', background: 'transparent', input_fidelity: 'high' })
    // In the client's order (the SDK's, which the gateway keeps); compared by name here.
    const files = form.files.map(({ name, filename, size, sha256 }) => ({ name, filename, size, sha256 })).sort((a, b) => a.filename.localeCompare(b.filename))
    expect(files).toEqual([
      { name: 'image[]', filename: 'first.png', size: first.byteLength, sha256: sha256(first) },
      { name: 'mask', filename: 'mask.png', size: mask.byteLength, sha256: sha256(mask) },
      { name: 'image[]', filename: 'second.png', size: second.byteLength, sha256: sha256(second) },
    ])
    const entry = await t.audit.entryFor(response.headers.get('x-request-id')!)
    expect(entry.data.request_parts).toContainEqual({ name: 'image[]', filename: 'second.png', content_type: 'image/png', bytes: second.byteLength, sha256: sha256(second) })
    expect(entry.data.request_parts).toContainEqual({ name: 'mask', filename: 'mask.png', content_type: 'image/png', bytes: mask.byteLength, sha256: sha256(mask) })
    expect(JSON.stringify(entry)).not.toContain(Buffer.from(second.subarray(0, 64)).toString('base64'))
    const usage = entry.usage!
    expect(usage).toMatchObject({ input_tokens: IMAGE_USAGE.input_tokens, output_tokens: IMAGE_USAGE.output_tokens * 2, unit: 'image', units: 2, unit_variant: '1024x1024/low' })
    expect(usage.cost_usd).toBeCloseTo((IMAGE_USAGE.input_tokens * 5 + IMAGE_USAGE.output_tokens * 2 * 40) / 1e6, 10)
  })

  test('DALL·E 2: one image with a mask, url answers, priced per image by size', async () => {
    const { data, response } = await t.openai.images
      .edit({
        model: 'openai/dall-e-2',
        prompt: 'a hat',
        size: '512x512',
        response_format: 'url',
        image: await toFile(png(4), 'cat.png', { type: 'image/png' }),
        mask: await toFile(png(5), 'mask.png', { type: 'image/png' }),
      })
      .withResponse()
    expect(data.data![0]!.url).toBe('https://oaidalleapiprodscus.blob.core.windows.net/private/img-0.png?sig=mock')
    expect(lastForm().files.map((f) => f.name)).toEqual(['image', 'mask'])
    const usage = await usageOf(response.headers.get('x-request-id'))
    expect(usage).toMatchObject({ unit: 'image', units: 1, unit_variant: '512x512/' })
    expect(usage.cost_usd).toBeCloseTo(0.018, 10)
  })

  test('stream=true: image_edit partial images and the completed image as OpenAI sent them; usage from the completed event', async () => {
    const stream = await t.openai.images.edit({
      model: 'openai/gpt-image-1',
      prompt: 'a hat',
      image: await toFile(png(6), 'cat.png', { type: 'image/png' }),
      stream: true,
      partial_images: 2,
    })
    const events: OpenAI.ImageEditStreamEvent[] = []
    for await (const event of stream) events.push(event)
    expect(events.map((e) => e.type)).toEqual(['image_edit.partial_image', 'image_edit.partial_image', 'image_edit.completed'])
    expect(events.at(-1)!.b64_json).toBe(MOCK_IMAGE_B64)
    expect(lastForm().fields).toMatchObject({ stream: 'true', partial_images: '2' })
    const list = await t.audit.eventually(
      () => t.audit.list({ path: '/v1/images/edits', limit: '1' }),
      (page) => page.entries[0]?.usage?.output_tokens === IMAGE_USAGE.output_tokens,
    )
    expect(list.entries[0]!.usage).toMatchObject({ input_tokens: IMAGE_USAGE.input_tokens, unit: 'image', units: 1 })
  })

  test("the upstream's refusal reaches the SDK as its APIError; the gateway's own refusals are GatewayErrors, audited", async () => {
    const two = [await toFile(png(7), 'a.png', { type: 'image/png' }), await toFile(png(8), 'b.png', { type: 'image/png' })]
    const upstream = await t.openai.images.edit({ model: 'openai/dall-e-2', prompt: 'x', image: two }).catch((e) => e)
    expect(upstream).toBeInstanceOf(OpenAI.BadRequestError)
    expect(upstream.error).toMatchObject({ param: 'image', code: 'invalid_value' })

    const before = t.openaiMock.requests.length
    const tooMany = await t.openai.images.edit({ model: 'openai/gpt-image-1', prompt: 'x', n: 11, image: two[0]! }).catch((e) => e)
    expect(tooMany).toBeInstanceOf(OpenAI.BadRequestError)
    expect(tooMany.error).toMatchObject({ param: 'n' })
    const noPrompt = await t.openai.images.edit({ model: 'openai/gpt-image-1', image: two[0]! } as never).catch((e) => e)
    expect(noPrompt).toBeInstanceOf(OpenAI.BadRequestError)
    expect(noPrompt.error).toMatchObject({ param: 'prompt' })
    const json = await fetch(`${t.gw.baseURL}/images/edits`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.master}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/gpt-image-1', prompt: 'x' }),
    })
    expect(json.status).toBe(415)
    expect(t.openaiMock.requests.length).toBe(before)
    for (const requestId of [tooMany.headers.get('x-request-id'), noPrompt.headers.get('x-request-id'), json.headers.get('x-request-id')])
      expect((await t.audit.entryFor(requestId!)).status_code).toBeGreaterThanOrEqual(400)
  })
})

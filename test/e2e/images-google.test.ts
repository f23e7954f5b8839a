/**
 * `POST /v1/images/generations` through Google's image models with the official `openai` SDK, against the mock
 * Gemini API speaking Google's wire format: Imagen through `:predict` (priced per image), the Gemini image model
 * through `generateContent` with `responseModalities: ["IMAGE"]` (its `inlineData` as `b64_json`, priced by its
 * tokens), `stream: true` answered with the completed images, image edits through the Gemini image model (the
 * uploaded images inline), and what Google cannot do refused before anything is sent.
 */
import { describe, expect, test } from 'bun:test'
import OpenAI, { toFile } from 'openai'
import { useGatewaySuite } from '../helpers/gateway-suite.ts'
import { INLINE_FILE_BYTES } from '../../plugins/providers/gemini/image-edits.ts'
import { GEMINI_IMAGE_USAGE, GOOGLE_IMAGE } from '../helpers/mock-gemini-upstream.ts'

const t = useGatewaySuite({ families: ['openai', 'gemini'] })

const lastGemini = () => t.geminiMock.requests.at(-1)!
const usageOf = async (requestId: string | null) => (await t.audit.entryFor(requestId!)).usage!

describe('Imagen: :predict', () => {
  test('n images at the nearest aspect ratio, as b64_json; priced per image', async () => {
    const { data, response } = await t.openai.images.generate({ model: 'gemini/imagen-4.0-generate-001', prompt: 'a lighthouse', n: 2, size: '1792x1024' }).withResponse()
    expect(lastGemini().path).toBe('/v1beta/models/imagen-4.0-generate-001:predict')
    expect(lastGemini().body).toEqual({ instances: [{ prompt: 'a lighthouse' }], parameters: { sampleCount: 2, aspectRatio: '16:9' } })
    expect(data.data!.map((d) => Buffer.from(d.b64_json!, 'base64'))).toEqual([Buffer.from(GOOGLE_IMAGE), Buffer.from(GOOGLE_IMAGE)])
    const usage = await usageOf(response.headers.get('x-request-id'))
    expect(usage).toMatchObject({ unit: 'image', units: 2 })
    expect(usage.cost_usd).toBeCloseTo(2 * 0.04, 10)
  })

  test('an image Google filtered is not priced: the units are the images answered', async () => {
    const { data, response } = await t.openai.images.generate({ model: 'gemini/imagen-one-filtered', prompt: 'a lighthouse', n: 3 }).withResponse()
    expect(data.data).toHaveLength(2)
    expect(await usageOf(response.headers.get('x-request-id'))).toMatchObject({ unit: 'image', units: 2 })
  })

  test("every image filtered by Google's checks is a content_policy_violation; Google's own 400 passes as the SDK's error", async () => {
    const filtered = await t.openai.images.generate({ model: 'gemini/imagen-filtered', prompt: 'x' }).catch((e) => e)
    expect(filtered).toBeInstanceOf(OpenAI.BadRequestError)
    expect(filtered.error).toMatchObject({ code: 'content_policy_violation', provider: 'gemini' })
    const tooMany = await t.openai.images.generate({ model: 'gemini/imagen-4.0-generate-001', prompt: 'x', n: 5 }).catch((e) => e)
    expect(tooMany).toBeInstanceOf(OpenAI.BadRequestError)
    expect(tooMany.error).toMatchObject({ code: 'INVALID_ARGUMENT', provider: 'gemini' })
    expect(tooMany.message).toContain('sampleCount')
  })
})

describe('Gemini image models: generateContent with responseModalities IMAGE', () => {
  test('the inlineData image as b64_json, text parts left out; priced by the tokens Gemini reports', async () => {
    const { data, response } = await t.openai.images.generate({ model: 'gemini/gemini-2.5-flash-image', prompt: 'a fox', size: '1024x1536' }).withResponse()
    expect(lastGemini().path).toBe('/v1beta/models/gemini-2.5-flash-image:generateContent')
    expect(lastGemini().body).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'a fox' }] }],
      generationConfig: { responseModalities: ['IMAGE'], imageConfig: { aspectRatio: '3:4' } },
    })
    expect(data.data).toHaveLength(1)
    expect(Buffer.from(data.data![0]!.b64_json!, 'base64')).toEqual(Buffer.from(GOOGLE_IMAGE))
    expect(data.usage).toMatchObject({ input_tokens: GEMINI_IMAGE_USAGE.promptTokenCount, output_tokens: GEMINI_IMAGE_USAGE.candidatesTokenCount })
    const usage = await usageOf(response.headers.get('x-request-id'))
    expect(usage).toMatchObject({ input_tokens: 9, output_tokens: 1290, unit: 'image', units: 1 })
    expect(usage.cost_usd).toBeCloseTo((9 * 0.3 + 1290 * 30) / 1e6, 10)
  })

  test('stream: true is answered with the completed image and its usage (Google streams no partial images)', async () => {
    const stream = await t.openai.images.generate({ model: 'gemini/gemini-2.5-flash-image', prompt: 'a fox', stream: true, partial_images: 2 })
    const events: OpenAI.ImageGenStreamEvent[] = []
    for await (const event of stream) events.push(event)
    expect(events.map((e) => e.type)).toEqual(['image_generation.completed'])
    expect(Buffer.from(events[0]!.b64_json, 'base64')).toEqual(Buffer.from(GOOGLE_IMAGE))
    const list = await t.audit.eventually(
      () => t.audit.list({ path: '/v1/images/generations', limit: '1' }),
      (page) => page.entries[0]?.usage?.output_tokens === GEMINI_IMAGE_USAGE.candidatesTokenCount,
    )
    expect(list.entries[0]!.usage).toMatchObject({ input_tokens: 9, unit: 'image', units: 1 })
  })

  test('a safety stop is a content_policy_violation', async () => {
    const unsafe = await t.openai.images.generate({ model: 'gemini/gemini-image-unsafe', prompt: 'x' }).catch((e) => e)
    expect(unsafe).toBeInstanceOf(OpenAI.BadRequestError)
    expect(unsafe.error).toMatchObject({ code: 'content_policy_violation', provider: 'gemini' })
    expect(unsafe.message).toContain('IMAGE_SAFETY')
  })
})

describe('image edits: a Gemini image model with the images inline', () => {
  test('every uploaded image as an inlineData part after the prompt; the edited image as b64_json, priced by tokens', async () => {
    const first = new Uint8Array(30_000).fill(1)
    first.set([0x89, 0x50, 0x4e, 0x47])
    const second = new Uint8Array(50_001).fill(2)
    second.set([0xff, 0xd8, 0xff])
    const { data, response } = await t.openai.images
      .edit({
        model: 'gemini/gemini-2.5-flash-image',
        prompt: 'both in one picture',
        size: '1024x1024',
        // The second part's type is not given: its first bytes say JPEG.
        image: [await toFile(first, 'a.png', { type: 'image/png' }), await toFile(second, 'b.jpg', { type: 'application/octet-stream' })],
      })
      .withResponse()
    expect(lastGemini().path).toBe('/v1beta/models/gemini-2.5-flash-image:generateContent')
    expect(lastGemini().body).toEqual({
      contents: [
        {
          role: 'user',
          parts: [
            { text: 'both in one picture' },
            { inlineData: { mimeType: 'image/png', data: Buffer.from(first).toString('base64') } },
            { inlineData: { mimeType: 'image/jpeg', data: Buffer.from(second).toString('base64') } },
          ],
        },
      ],
      generationConfig: { responseModalities: ['IMAGE'], imageConfig: { aspectRatio: '1:1' } },
    })
    expect(Buffer.from(data.data![0]!.b64_json!, 'base64')).toEqual(Buffer.from(GOOGLE_IMAGE))
    const usage = await usageOf(response.headers.get('x-request-id'))
    expect(usage).toMatchObject({ input_tokens: 9, output_tokens: 1290, unit: 'image', units: 1 })
  })

  test('stream=true: one image_edit.completed event', async () => {
    const stream = await t.openai.images.edit({
      model: 'gemini/gemini-2.5-flash-image',
      prompt: 'a hat',
      image: await toFile(new Uint8Array(64).fill(3), 'a.png', { type: 'image/png' }),
      stream: true,
    })
    const events: OpenAI.ImageEditStreamEvent[] = []
    for await (const event of stream) events.push(event)
    expect(events.map((e) => e.type)).toEqual(['image_edit.completed'])
  })
})

describe('what Google cannot do: a clear 400 (or 413) before anything is sent, audited', () => {
  test('url answers, several images from a Gemini image model, a mask, an Imagen edit, an edit past the inline limit', async () => {
    const before = t.geminiMock.requests.length
    const url = await t.openai.images.generate({ model: 'gemini/imagen-4.0-generate-001', prompt: 'x', response_format: 'url' }).catch((e) => e)
    expect(url).toBeInstanceOf(OpenAI.BadRequestError)
    expect(url.error).toMatchObject({ param: 'response_format', code: 'unsupported_value' })
    const several = await t.openai.images.generate({ model: 'gemini/gemini-2.5-flash-image', prompt: 'x', n: 2 }).catch((e) => e)
    expect(several).toBeInstanceOf(OpenAI.BadRequestError)
    expect(several.error).toMatchObject({ param: 'n', code: 'unsupported_value' })
    const image = await toFile(new Uint8Array(64), 'a.png', { type: 'image/png' })
    const mask = await t.openai.images
      .edit({ model: 'gemini/gemini-2.5-flash-image', prompt: 'x', image, mask: await toFile(new Uint8Array(64), 'm.png', { type: 'image/png' }) })
      .catch((e) => e)
    expect(mask).toBeInstanceOf(OpenAI.BadRequestError)
    expect(mask.error).toMatchObject({ param: 'mask', code: 'unsupported_value' })
    const imagen = await t.openai.images.edit({ model: 'gemini/imagen-4.0-generate-001', prompt: 'x', image }).catch((e) => e)
    expect(imagen).toBeInstanceOf(OpenAI.BadRequestError)
    expect(imagen.error).toMatchObject({ param: 'model', code: 'unsupported_endpoint' })
    const large = await t.openai.images
      .edit({ model: 'gemini/gemini-2.5-flash-image', prompt: 'x', image: await toFile(new Uint8Array(INLINE_FILE_BYTES + 1), 'big.png', { type: 'image/png' }) })
      .catch((e) => e)
    expect(large.status).toBe(413)
    expect(large.error).toMatchObject({ code: 'request_too_large', provider: 'gemini' })
    expect(t.geminiMock.requests.length).toBe(before)
    for (const error of [url, several, mask, imagen, large]) expect((await t.audit.entryFor(error.headers.get('x-request-id'))).status_code).toBe(error.status)
  })
})

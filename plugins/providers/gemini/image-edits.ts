/**
 * @module OpenAI image edits (`/v1/images/edits`) through a Gemini image model: `generateContent` with the prompt and
 * the uploaded images as `inlineData` parts, `responseModalities: ["IMAGE"]`, answered as a generation is
 * (./images.ts). Google takes images inline in its JSON (a request of at most 20 MB), so unlike every other upload
 * this one is read whole, and only up to INLINE_FILE_BYTES of form (413 past it, before anything is sent); each
 * chunk is copied as it is read, since the upload frees the chunks it hands on. Gemini edits from the prompt alone:
 * a form with a `mask` is refused, as are `response_format: "url"` and `n` above 1, and edits by Imagen models (whose
 * editing, on Vertex AI, is a model and request of its own).
 */
import { GatewayError, gatewayErrors } from '../../../src/errors/gateway-error.ts'
import { modelRefusal, requestRefusal } from '../../../src/providers/refusals.ts'
import type { AdapterCall, UpstreamResult } from '../../../src/providers/types.ts'
import type { UpstreamHttpRequest } from '../../../src/providers/upstream-fetch.ts'
import type { UpstreamUrl } from '../../../src/providers/upstream-url.ts'
import { answerWithImages, geminiImageRequest, imageOptionsRefusal, isImagenModel } from './images.ts'

/** The form read for an edit: its base64 stays within Gemini's 20 MB request. */
export const INLINE_FILE_BYTES = 14 * 1024 * 1024

/** What a Gemini image model cannot do of an edit's text fields; the mask is seen once the form is read. */
function unsupported(call: AdapterCall): GatewayError | undefined {
  const { n } = call.body
  if (isImagenModel(call.target.model)) return modelRefusal(call, 'edit images here', 'a Gemini image model')
  return imageOptionsRefusal(call, n !== undefined && n !== '1' && n !== 1)
}

/** The form, read whole within `limit` bytes (each chunk copied); undefined past the limit. */
async function readForm(form: { body: ReadableStream<Uint8Array>; contentType: string }, limit: number): Promise<FormData | undefined> {
  let read = 0
  let over = false
  const copied = form.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        read += chunk.byteLength
        if (read > limit) {
          over = true
          controller.error(new Error('over the inline limit'))
          return
        }
        controller.enqueue(chunk.slice())
      },
    }),
  )
  try {
    return await new Response(copied, { headers: { 'content-type': form.contentType } }).formData()
  } catch (error) {
    if (over) return undefined
    throw error
  }
}

/** A file's media type as sent, else as its first bytes say (PNG, JPEG, WebP): Gemini needs one. */
function mediaType(file: File, bytes: Uint8Array): string {
  if (file.type.startsWith('image/')) return file.type.split(';')[0]!
  if (bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47) return 'image/png'
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return 'image/jpeg'
  if (new TextDecoder().decode(bytes.subarray(8, 12)) === 'WEBP') return 'image/webp'
  return 'image/png'
}

export async function geminiImageEdit(
  call: AdapterCall,
  url: (method: 'predict' | 'generateContent') => UpstreamUrl,
  headers: Record<string, string>,
  toError: UpstreamHttpRequest['toError'],
): Promise<UpstreamResult> {
  const upload = call.ctx.upload
  if (!upload) return gatewayErrors.invalidRequest('This endpoint takes a multipart/form-data upload.', null, 'multipart_required')
  const refused = unsupported(call)
  if (refused) return refused
  const form = upload.forUpstream(call.body)
  if (form instanceof GatewayError) return form
  let formData: FormData | undefined
  try {
    formData = await readForm(form, INLINE_FILE_BYTES)
  } catch {
    return upload.failure ?? gatewayErrors.invalidRequest('The request body could not be read to its end.', null, 'request_body_incomplete')
  }
  if (upload.failure) return upload.failure
  if (!formData) {
    upload.discard()
    return new GatewayError({
      status: 413,
      type: 'invalid_request_error',
      provider: call.provider.name,
      code: 'request_too_large',
      message: `Provider '${call.provider.name}' takes the images inline in its request: at most ${INLINE_FILE_BYTES / 1024 / 1024} MiB of form.`,
    })
  }
  if (formData.has('mask'))
    return requestRefusal(call, 'mask', `Provider '${call.provider.name}' (type ${call.provider.type}) edits from the prompt alone: send the edit without a mask.`)
  const files = [...formData.getAll('image'), ...formData.getAll('image[]')].filter((value): value is File => typeof value !== 'string')
  if (files.length === 0) return requestRefusal(call, 'image', 'The form has no image to edit: send it as `image` (or several as `image[]`).', 'missing_required_parameter')
  const images = await Promise.all(
    files.map(async (file) => {
      const bytes = new Uint8Array(await file.arrayBuffer())
      return { inlineData: { mimeType: mediaType(file, bytes), data: Buffer.from(bytes).toString('base64') } }
    }),
  )
  const request = { url: url('generateContent'), headers, body: JSON.stringify(geminiImageRequest(call.body, images)), toError }
  return answerWithImages(call, request, false, call.body.stream === 'true' ? 'image_edit' : undefined)
}

/**
 * @module Image generation streams (`stream: true` with `partial_images`): `image_generation.partial_image` events,
 * then one `image_generation.completed` per image carrying the image and, for the GPT image models, the usage. The
 * fold keeps the completed images as the non-stream answer (`{created, data: [{b64_json}], usage}`); a broken
 * stream ends with an `error` event, which the SDKs raise as an APIError.
 */
import { namedEventFrame } from '../../pipeline/sse.ts'
import { parseJson, type StreamCodec } from '../../pipeline/stream-codecs.ts'

/** The completed event carries the usage; an error frame carries `error`. Partial images need not be parsed for usage. */
const USAGE_ONLY_MARKERS = ['.completed"', '"error"']

export const imagesStreamCodec: StreamCodec = {
  foldAlways: false,
  createFold(usageOnly = false) {
    const images: Record<string, unknown>[] = []
    let usage: unknown
    let created: unknown
    let error: unknown
    return {
      only: usageOnly ? USAGE_ONLY_MARKERS : undefined,
      add(event) {
        if (usageOnly && !USAGE_ONLY_MARKERS.some((marker) => event.data.includes(marker))) return
        const payload = parseJson(event.data)
        if (!payload) return
        if (event.event === 'error' || payload.type === 'error' || payload.error) error = payload.error ?? payload
        if (typeof payload.type !== 'string' || !payload.type.endsWith('.completed')) return
        created ??= payload.created_at
        if (payload.usage) usage = payload.usage
        if (!usageOnly) images.push({ b64_json: payload.b64_json })
      },
      result: () => (images.length > 0 ? { created, data: images, ...(usage ? { usage } : {}) } : undefined),
      usage: () => usage,
      error: () => error,
    }
  },
  errorFrame: (error) => namedEventFrame('error', { type: 'error', ...error.toJSON() }),
}

/**
 * @module What an audit entry's answer was when it was not text: the images of an image answer (`b64_json`, stored
 * with the body when bodies are logged), to show as thumbnails. Only raster images recognised by their first bytes
 * (PNG, JPEG, GIF, WebP) become `data:` URLs; anything else (an SVG, bytes that are not an image, a string that is
 * not base64) is left as the text it is in the body.
 */

/** At most this many thumbnails per answer (an answer holds at most 10 images). */
const MAX_THUMBNAILS = 10
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/

export interface AnswerImage {
  /** Its place in the answer's `data`. */
  index: number
  /** A `data:image/…;base64,` URL. */
  src: string
}

/** The images of an image answer (`{"data": [{"b64_json"}]}`, OpenAI's generations and edits), in order. */
export function answerImages(responseBody: unknown): AnswerImage[] {
  const data = (responseBody as { data?: unknown } | null | undefined)?.data
  if (!Array.isArray(data)) return []
  const images: AnswerImage[] = []
  data.forEach((item, index) => {
    const b64 = (item as { b64_json?: unknown } | null)?.b64_json
    if (typeof b64 !== 'string' || images.length >= MAX_THUMBNAILS || !BASE64.test(b64)) return
    const type = rasterType(b64)
    if (type) images.push({ index, src: `data:${type};base64,${b64}` })
  })
  return images
}

/** The image type of base64 bytes by their signature; undefined for anything else. */
function rasterType(b64: string): string | undefined {
  let head: string
  try {
    head = atob(b64.slice(0, 16))
  } catch {
    return undefined
  }
  const bytes = Array.from(head, (c) => c.charCodeAt(0))
  const starts = (...signature: number[]) => signature.every((byte, i) => bytes[i] === byte)
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png'
  if (starts(0xff, 0xd8, 0xff)) return 'image/jpeg'
  if (starts(0x47, 0x49, 0x46, 0x38)) return 'image/gif'
  if (starts(0x52, 0x49, 0x46, 0x46) && head.slice(8, 12) === 'WEBP') return 'image/webp'
  return undefined
}

/** @module The text of a message's content in any of the supported shapes: a string, or an array of parts. */

/** Parts without a `text` field (images, files, tool calls) contribute nothing. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content.map((part: { text?: unknown } | null) => (typeof part?.text === 'string' ? part.text : '')).join('')
}

/**
 * @module A request's labels from its tagging headers (docs/labels.md): the list header's comma-separated
 * items first, then one `name:value` per tag header, sorted by name. Duplicates are kept once, in first-seen order.
 * Limits are enforced, not truncated: a client that sends too many or too long labels learns it from a 400.
 */
import type { LabelsConfig } from './config.ts'

export type LabelsResult = { ok: true; labels: string[] } | { ok: false; message: string; param: string }

/** Printable ASCII without the comma (the list separator). */
const LABEL_TEXT = /^[\x20-\x2b\x2d-\x7e]+$/

/** Most requests carry no label: one shared answer for them. */
const NO_LABELS: LabelsResult = Object.freeze({ ok: true, labels: Object.freeze([]) as unknown as string[] })

export function requestLabels(headers: Headers, config: LabelsConfig): LabelsResult {
  const found: { label: string; header: string }[] = []
  if (config.header) {
    const list = headers.get(config.header)
    if (list) for (const item of list.split(',')) found.push({ label: item.trim(), header: config.header })
  }
  if (config.tag_header_prefix) {
    const tags: { label: string; header: string }[] = []
    headers.forEach((value, name) => {
      if (!name.startsWith(config.tag_header_prefix) || name.length === config.tag_header_prefix.length) return
      const tag = name.slice(config.tag_header_prefix.length)
      const text = value.trim()
      tags.push({ label: text ? `${tag}:${text}` : tag, header: name })
    })
    if (tags.length > 0) found.push(...tags.sort((a, b) => (a.header < b.header ? -1 : 1)))
  }
  if (found.length === 0) return NO_LABELS

  const labels: string[] = []
  for (const { label, header } of found) {
    if (label === '' || labels.includes(label)) continue
    if (label.length > config.max_length)
      return { ok: false, param: header, message: `Label '${label.slice(0, 40)}…' in ${header} is longer than ${config.max_length} characters.` }
    if (!LABEL_TEXT.test(label)) return { ok: false, param: header, message: `Labels in ${header} may only contain printable ASCII characters other than ','.` }
    labels.push(label)
    if (labels.length > config.max_count)
      return {
        ok: false,
        param: header,
        message: `A request may carry at most ${config.max_count} labels (from ${config.header || 'no list header'} and ${config.tag_header_prefix ? `${config.tag_header_prefix}* headers` : 'no tag headers'}).`,
      }
  }
  return { ok: true, labels }
}

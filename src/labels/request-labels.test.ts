import { describe, expect, test } from 'bun:test'
import { labelsConfigSchema } from './config.ts'
import { requestLabels } from './request-labels.ts'

const defaults = labelsConfigSchema.parse({})
const headers = (init: Record<string, string>) => new Headers(init)

describe('requestLabels', () => {
  test('no tagging headers: no labels', () => {
    expect(requestLabels(headers({ 'content-type': 'application/json' }), defaults)).toEqual({ ok: true, labels: [] })
  })

  test('the list header is split on commas, trimmed, empty parts dropped, duplicates kept once in order', () => {
    expect(requestLabels(headers({ 'x-gateway-labels': ' checkout , batch,,checkout, Nightly ' }), defaults)).toEqual({ ok: true, labels: ['checkout', 'batch', 'Nightly'] })
  })

  test('tag headers become name:value labels, after the list header, sorted by name', () => {
    const result = requestLabels(headers({ 'x-gateway-labels': 'a', 'x-gateway-tag-team': 'payments', 'x-gateway-tag-env': ' prod ' }), defaults)
    expect(result).toEqual({ ok: true, labels: ['a', 'env:prod', 'team:payments'] })
  })

  test('a tag header with an empty value is the bare name', () => {
    expect(requestLabels(headers({ 'x-gateway-tag-experiment': '' }), defaults)).toEqual({ ok: true, labels: ['experiment'] })
  })

  test('too many labels is an error naming the limit and the header', () => {
    const many = Array.from({ length: defaults.max_count + 1 }, (_, i) => `l${i}`).join(',')
    const result = requestLabels(headers({ 'x-gateway-labels': many }), defaults)
    expect(result.ok).toBe(false)
    if (!result.ok) {
      expect(result.message).toContain(`at most ${defaults.max_count} labels`)
      expect(result.param).toBe('x-gateway-labels')
    }
  })

  test('a label longer than the limit is an error', () => {
    const result = requestLabels(headers({ 'x-gateway-tag-team': 'x'.repeat(defaults.max_length) }), defaults)
    expect(result.ok).toBe(false)
    if (!result.ok) {
      expect(result.message).toContain(`longer than ${defaults.max_length} characters`)
      expect(result.param).toBe('x-gateway-tag-team')
    }
  })

  test('control and non-ASCII characters are refused', () => {
    for (const bad of ['tab\there', 'caf\u00e9']) {
      const result = requestLabels(headers({ 'x-gateway-labels': bad }), defaults)
      expect(result.ok).toBe(false)
    }
  })

  test('configured header names and limits apply; an empty name switches that source off', () => {
    const config = labelsConfigSchema.parse({ header: 'X-Team-Tags', tag_header_prefix: '', max_count: 2, max_length: 5 })
    expect(requestLabels(headers({ 'x-team-tags': 'a,b', 'x-gateway-labels': 'ignored', 'x-gateway-tag-x': 'y' }), config)).toEqual({ ok: true, labels: ['a', 'b'] })
    expect(requestLabels(headers({ 'x-team-tags': 'a,b,c' }), config).ok).toBe(false)
    expect(requestLabels(headers({ 'x-team-tags': 'abcdef' }), config).ok).toBe(false)
  })

  test('the configuration rejects header names that are not HTTP tokens', () => {
    expect(labelsConfigSchema.safeParse({ header: 'bad header' }).success).toBe(false)
    expect(labelsConfigSchema.safeParse({ tag_header_prefix: 'x-tag:' }).success).toBe(false)
  })
})

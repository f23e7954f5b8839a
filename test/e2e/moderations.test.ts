/**
 * `POST /v1/moderations` end to end with the official `openai` SDK against the mock OpenAI upstream: a text, several
 * texts, text and image parts together (the omni models), the upstream's refusal of images on a text-only model,
 * the gateway's own 400s, and the audit entry: the input's tokens counted by the gateway (the answer reports none),
 * free at the bundled price, and never masked by guardrails (the row leaves them off: the input is what is judged).
 */
import { describe, expect, test } from 'bun:test'
import OpenAI from 'openai'
import { useGatewaySuite } from '../helpers/gateway-suite.ts'

const t = useGatewaySuite({
  yaml: () => `workflows:
  - name: default
    features: { guardrails: true }
    plugins:
      guardrails:
        rules:
          - { name: no-kill, kind: pattern, words: [kill], action: block }
`,
})

describe('moderations', () => {
  test('a text: flagged with its categories and scores; free, its tokens counted by the gateway', async () => {
    const { data, response } = await t.openai.moderations.create({ model: 'openai/omni-moderation-latest', input: 'I will kill the process' }).withResponse()
    expect(data.results).toHaveLength(1)
    expect(data.results[0]!.flagged).toBe(true)
    expect(data.results[0]!.categories.violence).toBe(true)
    expect(data.results[0]!.category_scores.violence).toBe(0.91)
    expect(t.openaiMock.requests.at(-1)!.body).toEqual({ model: 'omni-moderation-latest', input: 'I will kill the process' })
    const entry = await t.audit.entryFor(response.headers.get('x-request-id')!)
    expect(entry.status_code).toBe(200)
    expect(entry.usage!.input_tokens).toBeGreaterThan(0)
    expect(entry.usage!.cost_usd).toBe(0)
  })

  test('several texts: one result each, in order', async () => {
    const data = await t.openai.moderations.create({ model: 'openai/omni-moderation-latest', input: ['hello', 'kill it', 'bye'] })
    expect(data.results.map((r) => r.flagged)).toEqual([false, true, false])
  })

  test('text and an image together: one result, the image judged too', async () => {
    const input: OpenAI.ModerationMultiModalInput[] = [
      { type: 'text', text: 'a picture' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
    ]
    const data = await t.openai.moderations.create({ model: 'openai/omni-moderation-latest', input })
    expect(data.results).toHaveLength(1)
    expect(data.results[0]!.categories.sexual).toBe(true)
    expect(data.results[0]!.category_applied_input_types.sexual).toEqual(['text', 'image'])
    expect(t.openaiMock.requests.at(-1)!.body.input).toEqual(input)
  })

  test("images on a text-only model: the upstream's 400 as the SDK's BadRequestError; the gateway's own 400s name the field", async () => {
    const refused = await t.openai.moderations
      .create({ model: 'openai/text-moderation-latest', input: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] })
      .catch((e) => e)
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError)
    expect(refused.code).toBe('invalid_value')
    expect((await t.audit.entryFor(refused.headers.get('x-request-id'))).status_code).toBe(400)

    const bad = await t.openai.moderations.create({ model: 'openai/omni-moderation-latest', input: 42 as never }).catch((e) => e)
    expect(bad).toBeInstanceOf(OpenAI.BadRequestError)
    expect(bad.message).toContain('input')
    expect((await t.audit.entryFor(bad.headers.get('x-request-id'))).status_code).toBe(400)
  })
})

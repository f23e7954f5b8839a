import { expect, test } from 'bun:test'
import { makeEntry, T0 } from '../../test/helpers/audit-entries.ts'
import { AUDIT_ROW_COLUMNS, auditRowColumns, auditRowPayload, auditRowSearchText, encodeAuditEntry, isAuditRow } from './record.ts'

const columnsByName = (row: ReturnType<typeof encodeAuditEntry>) => Object.fromEntries(auditRowColumns(row).map((v, i) => [AUDIT_ROW_COLUMNS[i], v]))

test('columns follow AUDIT_ROW_COLUMNS; LogData is split into light JSON and the heavy payload', () => {
  const entry = makeEntry({
    at: T0,
    stream: true,
    alias_used: false,
    session_id: 'sess-1',
    data: {
      user_agent: 'OpenAI/JS 6.9.0',
      error_message: 'Upstream rate limit',
      request_body: { model: 'fast', messages: [{ role: 'user', content: 'hi' }] },
      attempts: [
        {
          seq: 1,
          kind: 'primary',
          model: 'm',
          provider_name: 'openai',
          provider_type: 'openai',
          started_at: '',
          duration_ns: 1,
          success: false,
          status_code: 429,
          response_body: { error: 'slow down' },
        },
      ],
    },
    usage: {
      input_tokens: 3,
      output_tokens: 4,
      total_tokens: 7,
      cached_input_tokens: 0,
      uncached_input_tokens: 3,
      cache_write_input_tokens: 0,
      cached_input_ratio: 0,
      estimated_cached_characters: 0,
      rewrite_tokens_saved: 0,
      rewrite_cost_saved: 0,
      entries: 1,
    },
  })
  const row = encodeAuditEntry(entry)
  expect(isAuditRow(row)).toBe(true)
  const columns = columnsByName(row)
  expect(columns).toMatchObject({ id: entry.id, ts: T0, stream: 1, alias_used: 0, session_id: 'sess-1', conversation_payload: 1, response_id: null, previous_response_id: null })
  const light = JSON.parse(columns.data as string)
  expect(light.user_agent).toBe('OpenAI/JS 6.9.0')
  expect(light.request_body).toBeUndefined()
  expect(light.attempts[0].response_body).toBeUndefined()
  expect(JSON.parse(columns.usage as string)).toEqual(entry.usage!)
  expect(JSON.parse(auditRowPayload(row)!)).toEqual({ request_body: entry.data.request_body, attempts: [{ index: 0, response_body: { error: 'slow down' } }] })
  expect(auditRowSearchText(row)).toContain('Upstream rate limit')
})

test('a body parsed from JSON text is stored as that text, byte for byte', () => {
  const requestText = '{ "model" : "fast",\n  "input": "hi", "previous_response_id": "resp_1" }'
  const responseText = '{"object":"response","id":"resp_2",   "output":[]}'
  const entry = makeEntry({ data: { request_body: JSON.parse(requestText), response_body: JSON.parse(responseText) } })
  const row = encodeAuditEntry(entry, { request: requestText, response: responseText })
  expect(auditRowPayload(row)).toBe(`{"request_body":${requestText},"response_body":${responseText}}`)
  expect(columnsByName(row)).toMatchObject({ response_id: 'resp_2', previous_response_id: 'resp_1', conversation_payload: 1 })
})

test('without texts the bodies are serialised; an entry without heavy parts has no payload', () => {
  const withBody = encodeAuditEntry(makeEntry({ data: { response_body: 'not json' } }))
  expect(JSON.parse(auditRowPayload(withBody)!)).toEqual({ response_body: 'not json' })
  expect(columnsByName(withBody).conversation_payload).toBe(0)
  expect(auditRowPayload(encodeAuditEntry(makeEntry()))).toBeNull()
})

test('isAuditRow tells rows from other JSON', () => {
  const row = encodeAuditEntry(makeEntry())
  expect(isAuditRow(JSON.parse(JSON.stringify(row)))).toBe(true)
  expect(isAuditRow(row.slice(1))).toBe(false)
  expect(isAuditRow({ id: 'x' })).toBe(false)
})

test('the search text leaves out a part that repeats the one before it', () => {
  const row = encodeAuditEntry(makeEntry({ requested_model: 'openai/gpt-4o', resolved_model: 'openai/gpt-4o', provider: 'openai', provider_name: 'openai', error_type: '' }))
  expect(auditRowSearchText(row)).toBe('openai/gpt-4o openai POST /v1/chat/completions')
})

import { describe, expect, test } from 'bun:test'
import { GatewayError } from '../errors/gateway-error.ts'
import { parseAuditLogQuery, parseAuditStatsQuery, parseConversationQuery, parseLogId } from './query.ts'

const NOW = Date.UTC(2026, 10, 22, 15, 30) // 2026-11-22T15:30Z
const DAY = 86_400_000
const TODAY = Date.UTC(2026, 10, 22)
const q = (s: string) => parseAuditLogQuery(new URLSearchParams(s), NOW)

function rejection(run: () => unknown): GatewayError {
  try {
    run()
  } catch (error) {
    if (error instanceof GatewayError) return error
    throw error
  }
  throw new Error('expected a GatewayError')
}

describe('GET /admin/audit/log parameters', () => {
  test('defaults: the last 30 calendar days up to now, 25 per page from 0, counted up to 10,000', () => {
    expect(q('')).toEqual({ from: TODAY - 29 * DAY, limit: 25, offset: 0, countUpTo: 10_000 })
  })

  test('days counts calendar days including today', () => {
    expect(q('days=1').from).toBe(TODAY)
    expect(q('days=7').from).toBe(TODAY - 6 * DAY)
  })

  test('start_date and end_date are inclusive UTC days', () => {
    expect(q('start_date=2026-11-01&end_date=2026-11-03')).toMatchObject({ from: Date.UTC(2026, 10, 1), to: Date.UTC(2026, 10, 4) })
  })

  test('only start_date runs to the end of today; only end_date reaches back `days`', () => {
    expect(q('start_date=2026-11-20')).toMatchObject({ from: Date.UTC(2026, 10, 20), to: TODAY + DAY })
    expect(q('end_date=2026-11-10&days=3')).toMatchObject({ from: Date.UTC(2026, 10, 8), to: Date.UTC(2026, 10, 11) })
  })

  test('a session without dates spans all time; with a date it keeps the window', () => {
    const whole = q('session_id=s-1')
    expect(whole.sessionId).toBe('s-1')
    expect(whole.from).toBeUndefined()
    expect(whole.to).toBeUndefined()
    expect(q('session_id=s-1&days=2').from).toBe(TODAY - DAY)
  })

  test('every filter is read', () => {
    expect(
      q(
        'requested_model=fast&provider=openai&method=post&path=/v1/chat/completions&user_path=acme//team-a/&error_type=rate_limit_error&status_code=429&stream=true&search=rate%20limit&limit=100&offset=50',
      ),
    ).toEqual({
      from: TODAY - 29 * DAY,
      requestedModel: 'fast',
      provider: 'openai',
      method: 'POST',
      path: '/v1/chat/completions',
      userPath: '/acme/team-a',
      errorType: 'rate_limit_error',
      statusCode: 429,
      stream: true,
      search: 'rate limit',
      limit: 100,
      offset: 50,
      countUpTo: 10_000,
    })
  })

  test('model is an alias of requested_model', () => {
    expect(q('model=fast').requestedModel).toBe('fast')
    expect(q('model=fast&requested_model=fast').requestedModel).toBe('fast')
  })

  test('stream accepts true/false/1/0', () => {
    expect(q('stream=false').stream).toBe(false)
    expect(q('stream=1').stream).toBe(true)
    expect(q('stream=0').stream).toBe(false)
  })

  test('the total is counted up to 10,000 unless exact_total is true', () => {
    expect(q('').countUpTo).toBe(10_000)
    expect(q('exact_total=false').countUpTo).toBe(10_000)
    expect(q('exact_total=true').countUpTo).toBeUndefined()
    expect(q('exact_total=1').countUpTo).toBeUndefined()
  })

  test('empty values count as not given', () => {
    expect(q('provider=&limit=&search=%20&exact_total=')).toEqual({ from: TODAY - 29 * DAY, limit: 25, offset: 0, countUpTo: 10_000 })
  })

  const invalid: [string, string, RegExp][] = [
    ['days=0', 'days', /between 1 and 3650/],
    ['days=abc', 'days', /whole number/],
    ['days=-3', 'days', /whole number/],
    ['days=4000', 'days', /between 1 and 3650/],
    ['start_date=2026-13-01', 'start_date', /YYYY-MM-DD/],
    ['start_date=2026-02-30', 'start_date', /YYYY-MM-DD/],
    ['end_date=22.11.2026', 'end_date', /YYYY-MM-DD/],
    ['start_date=2026-11-10&end_date=2026-11-01', 'start_date', /on or before end_date/],
    ['limit=0', 'limit', /positive whole number/],
    ['limit=ten', 'limit', /positive whole number/],
    ['limit=101', 'limit', /between 1 and 100/],
    ['offset=-1', 'offset', /whole number/],
    ['offset=1.5', 'offset', /whole number/],
    ['status_code=abc', 'status_code', /whole number/],
    ['status_code=99', 'status_code', /between 100 and 599/],
    ['status_code=600', 'status_code', /between 100 and 599/],
    ['stream=yes', 'stream', /true or false/],
    ['exact_total=yes', 'exact_total', /true or false/],
    ['method=P0ST', 'method', /HTTP method/],
    ['path=v1/chat', 'path', /starting with/],
    ['user_path=/a/../b', 'user_path', /user_path/],
    ['user_path=/a%20b', 'user_path', /user_path/],
    ['error_type=oops', 'error_type', /expected one of/],
    ['model=a&requested_model=b', 'model', /alias/],
    [`search=${'x'.repeat(201)}`, 'search', /longer than 200/],
    [`session_id=${'s'.repeat(201)}`, 'session_id', /longer than 200/],
    ['colour=red', 'colour', /Unknown query parameter/],
    ['limit=5&limit=6', 'limit', /more than once/],
  ]
  for (const [params, param, message] of invalid) {
    test(`400 naming '${param}' for ${params.slice(0, 50)}`, () => {
      const error = rejection(() => q(params))
      expect(error.status).toBe(400)
      expect(error.type).toBe('invalid_request_error')
      expect(error.param).toBe(param)
      expect(error.message).toMatch(message)
    })
  }
})

describe('other audit endpoints', () => {
  test('detail needs log_id', () => {
    expect(parseLogId(new URLSearchParams('log_id=abc'))).toBe('abc')
    expect(rejection(() => parseLogId(new URLSearchParams(''))).param).toBe('log_id')
    expect(rejection(() => parseLogId(new URLSearchParams('id=abc'))).param).toBe('id')
  })

  test('conversation: log_id plus limit 1–200, default 40', () => {
    expect(parseConversationQuery(new URLSearchParams('log_id=x'))).toEqual({ logId: 'x', limit: 40 })
    expect(parseConversationQuery(new URLSearchParams('log_id=x&limit=200')).limit).toBe(200)
    expect(rejection(() => parseConversationQuery(new URLSearchParams('log_id=x&limit=201'))).param).toBe('limit')
    expect(rejection(() => parseConversationQuery(new URLSearchParams('limit=3'))).param).toBe('log_id')
  })

  test('stats: hourly under three days, daily otherwise, never past the current bucket', () => {
    const hourly = parseAuditStatsQuery(new URLSearchParams('days=2'), NOW)
    expect(hourly).toEqual({ from: TODAY - DAY, to: Date.UTC(2026, 10, 22, 16), bucketMs: 3_600_000 })
    const daily = parseAuditStatsQuery(new URLSearchParams('start_date=2026-11-01&end_date=2026-11-10'), NOW)
    expect(daily).toEqual({ from: Date.UTC(2026, 10, 1), to: Date.UTC(2026, 10, 11), bucketMs: DAY })
    expect(rejection(() => parseAuditStatsQuery(new URLSearchParams('status_code=200'), NOW)).param).toBe('status_code')
  })
})

test('a control character in a query value (a lone NUL search) is a 400 naming the parameter, not a match-all', () => {
  for (const value of ['\u0000', 'abc\u0000', '\u001b[31m']) {
    const error = (() => {
      try {
        parseAuditLogQuery(new URLSearchParams({ search: value }))
      } catch (e) {
        return e
      }
    })()
    expect(error).toBeInstanceOf(GatewayError)
    expect((error as GatewayError).status).toBe(400)
    expect((error as GatewayError).param).toBe('search')
  }
})

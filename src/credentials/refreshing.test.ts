import { describe, expect, test } from 'bun:test'
import { GatewayError } from '../errors/gateway-error.ts'
import { Refreshing } from './refreshing.ts'

const failure = new GatewayError({ status: 503, type: 'provider_error', code: 'google_credentials_unreachable', message: 'down' })

function clockAndSource(lifetimeMs: number) {
  let now = 1_000_000
  let fetches = 0
  let fail = false
  let release: (() => void) | undefined
  const source = new Refreshing<string>(
    async () => {
      fetches++
      if (release === undefined && fetches > 1) await new Promise<void>((r) => (release = r))
      if (fail) return failure
      return { value: `token-${fetches}`, expiresAt: now + lifetimeMs }
    },
    { refreshMarginMs: 5 * 60_000, failureMemoryMs: 2_000, now: () => now },
  )
  return {
    source,
    advance: (ms: number) => (now += ms),
    fetches: () => fetches,
    failNext: () => (fail = true),
    finishRenewal: () => release?.(),
    noBlocking: () => (release = () => {}),
  }
}

describe('Refreshing', () => {
  test('one fetch for concurrent first requests, then the cached value', async () => {
    const t = clockAndSource(3_600_000)
    t.noBlocking()
    const [a, b] = await Promise.all([t.source.get(), t.source.get()])
    expect([a, b, t.fetches()]).toEqual(['token-1', 'token-1', 1])
    t.advance(3_000_000)
    expect(await t.source.get()).toBe('token-1')
    expect(t.fetches()).toBe(1)
  })

  test('within the margin the old value is served while one renewal runs in the background', async () => {
    const t = clockAndSource(3_600_000)
    expect(await t.source.get()).toBe('token-1')
    t.advance(3_600_000 - 60_000)
    expect(await t.source.get()).toBe('token-1')
    expect(await t.source.get()).toBe('token-1')
    expect(t.fetches()).toBe(2)
    t.finishRenewal()
    await Bun.sleep(0)
    expect(await t.source.get()).toBe('token-2')
  })

  test('an expired value is fetched in the request path; a failure answers for itself briefly, then is tried again', async () => {
    const t = clockAndSource(60_000)
    t.noBlocking()
    await t.source.get()
    t.advance(61_000)
    t.failNext()
    expect(await t.source.get()).toBe(failure)
    expect(await t.source.get()).toBe(failure)
    expect(t.fetches()).toBe(2)
    t.advance(2_001)
    await t.source.get()
    expect(t.fetches()).toBe(3)
  })

  test('a short-lived token renews at half its life, not before it was had', async () => {
    const t = clockAndSource(120_000)
    t.noBlocking()
    await t.source.get()
    t.advance(59_000)
    await t.source.get()
    expect(t.fetches()).toBe(1)
    t.advance(2_000)
    await t.source.get()
    expect(t.fetches()).toBe(2)
  })
})

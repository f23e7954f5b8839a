import { describe, expect, test } from 'bun:test'
import { addressGroup, CredentialThrottle } from './credential-throttle.ts'

const at = (address: string) => () => address

describe('CredentialThrottle', () => {
  test('different failed credentials throttle the address after the burst; it recovers with the refill', () => {
    let now = 0
    const throttle = new CredentialThrottle({ burst: 3, refillPerSecond: 0.5, now: () => now })
    for (let i = 0; i < 3; i++) {
      expect(throttle.verdict(at('9.9.9.9'))).toEqual({ throttled: false })
      throttle.recordFailure('9.9.9.9', `guess-${i}`)
    }
    expect(throttle.verdict(at('9.9.9.9'))).toEqual({ throttled: true, retryAfterSeconds: 2 })
    expect(throttle.verdict(at('8.8.8.8'))).toEqual({ throttled: false })
    now += 1000
    expect(throttle.verdict(at('9.9.9.9'))).toEqual({ throttled: true, retryAfterSeconds: 1 })
    now += 1000
    expect(throttle.verdict(at('9.9.9.9'))).toEqual({ throttled: false })
    throttle.recordFailure('9.9.9.9', 'guess-4')
    expect(throttle.verdict(at('9.9.9.9')).throttled).toBe(true)
  })

  test('repeating the same wrong credential costs the address one token, so it never locks out the others behind it', () => {
    let now = 0
    const throttle = new CredentialThrottle({ burst: 3, refillPerSecond: 1, now: () => now })
    for (let i = 0; i < 1000; i++) {
      throttle.recordFailure('10.0.0.1', 'revoked-key-digest')
      now += 10
    }
    expect(throttle.verdict(at('10.0.0.1'))).toEqual({ throttled: false })
    // Remembered for rememberMs (15 min by default); after that it costs one token again.
    now += 16 * 60_000
    throttle.recordFailure('10.0.0.1', 'revoked-key-digest')
    expect(throttle.verdict(at('10.0.0.1'))).toEqual({ throttled: false })
  })

  test('the address is read only while some address is throttled', () => {
    const throttle = new CredentialThrottle({ burst: 1 })
    let reads = 0
    const counted = () => {
      reads++
      return '1.1.1.1'
    }
    expect(throttle.verdict(counted)).toEqual({ throttled: false })
    expect(reads).toBe(0)
    throttle.recordFailure('2.2.2.2', 'x')
    expect(throttle.verdict(counted)).toEqual({ throttled: false })
    expect(reads).toBe(1)
  })

  test('IPv6 addresses of one /64 share a bucket; IPv4-mapped addresses count as IPv4', () => {
    const throttle = new CredentialThrottle({ burst: 2 })
    throttle.recordFailure('2001:db8:1:2::1', 'a')
    throttle.recordFailure('2001:db8:1:2:ffff:ffff:ffff:ffff', 'b')
    expect(throttle.verdict(at('2001:0db8:0001:0002::99')).throttled).toBe(true)
    expect(throttle.verdict(at('2001:db8:1:3::1')).throttled).toBe(false)
    throttle.recordFailure('::ffff:192.0.2.7', 'a')
    throttle.recordFailure('192.0.2.7', 'b')
    expect(throttle.verdict(at('192.0.2.7')).throttled).toBe(true)
  })

  test('memory stays bounded under a flood from many addresses and credentials', () => {
    const throttle = new CredentialThrottle({ burst: 5, maxAddresses: 100, maxRemembered: 300 })
    for (let i = 0; i < 20_000; i++) throttle.recordFailure(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, `guess-${i}`)
    expect(throttle.size.addresses).toBeLessThanOrEqual(100)
    expect(throttle.size.remembered).toBeLessThanOrEqual(300)
  })
})

test.each([
  ['192.0.2.1', '192.0.2.1'],
  ['::ffff:192.0.2.1', '192.0.2.1'],
  ['2001:db8::1', '2001:db8:0:0::/64'],
  ['2001:DB8:0000:0001:aaaa::', '2001:db8:0:1::/64'],
  ['::1', '0:0:0:0::/64'],
  ['fe80::1%eth0', 'fe80:0:0:0::/64'],
])('addressGroup(%s) = %s', (address, group) => {
  expect(addressGroup(address)).toBe(group)
})

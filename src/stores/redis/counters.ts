/**
 * @module Counters in Redis, shared by every replica. Each operation is one Lua script, so the check and the
 * increment are atomic across replicas (a MULTI sent over an auto-pipelined connection could interleave with
 * other requests' commands). Values are integers (tokens, requests, micro-dollars).
 */
import type { RedisClient } from 'bun'
import type { Counters } from '../types.ts'

const ADD_WITHIN = `
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
local delta = tonumber(ARGV[1])
if current + delta > tonumber(ARGV[2]) then return {0, current} end
local value = redis.call('INCRBY', KEYS[1], delta)
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return {1, value}`

const ADD = `
local value = redis.call('INCRBY', KEYS[1], ARGV[1])
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return value`

export class RedisCounters implements Counters {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix = 'gw:counter:',
  ) {}

  async addWithin(key: string, delta: number, limit: number, ttlMs: number) {
    const [ok, value] = (await this.redis.send('EVAL', [
      ADD_WITHIN,
      '1',
      this.prefix + key,
      String(Math.round(delta)),
      String(Math.floor(limit)),
      String(Math.max(1, Math.ceil(ttlMs))),
    ])) as [number, number]
    return { ok: ok === 1, value: Number(value) }
  }

  async add(key: string, delta: number, ttlMs: number) {
    return Number(await this.redis.send('EVAL', [ADD, '1', this.prefix + key, String(Math.round(delta)), String(Math.max(1, Math.ceil(ttlMs)))]))
  }

  async get(key: string) {
    return Number((await this.redis.get(this.prefix + key)) ?? 0)
  }
}

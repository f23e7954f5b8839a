/** @module Whether a key may be used now: revoked wins over expired, which wins over active. */
import type { ApiKeyRecord } from '../stores/types.ts'

export type KeyStatus = 'active' | 'expired' | 'revoked'

export function keyStatus(record: Pick<ApiKeyRecord, 'revokedAt' | 'expiresAt'>, now: number): KeyStatus {
  if (record.revokedAt !== null) return 'revoked'
  if (record.expiresAt !== null && Date.parse(record.expiresAt) <= now) return 'expired'
  return 'active'
}

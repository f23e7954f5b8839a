/**
 * @module The setup of the suites that run a gateway process in front of the fault upstream: both started before
 * the suite, stopped after it.
 */
import { afterAll, beforeAll } from 'bun:test'
import { type AuditAdmin, auditAdmin } from './audit-admin.ts'
import { type FaultUpstream, startFaultUpstream } from './fault-upstream.ts'
import { type GatewayProcess, spawnGateway } from './gateway-process.ts'

export interface FaultGateway {
  upstream: FaultUpstream
  gw: GatewayProcess
  admin: AuditAdmin
}

/**
 * Registers the suite's hooks and returns what its tests read. `env` must hold GATEWAY_MASTER_KEY and
 * OPENAI_API_KEY; OPENAI_BASE_URL is the fault upstream.
 */
export function useFaultGateway(env: Record<string, string> & { GATEWAY_MASTER_KEY: string; OPENAI_API_KEY: string }): FaultGateway {
  const suite = {} as FaultGateway
  beforeAll(async () => {
    suite.upstream = startFaultUpstream()
    suite.gw = await spawnGateway({ ...env, OPENAI_BASE_URL: suite.upstream.url })
    suite.admin = auditAdmin(suite.gw.url, env.GATEWAY_MASTER_KEY)
  }, 30_000)
  afterAll(async () => {
    await suite.gw?.stop()
    suite.upstream?.stop()
  })
  return suite
}

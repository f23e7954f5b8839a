/**
 * Microsoft Entra ID client credentials against a loopback token endpoint that checks what Entra checks: tenant,
 * client, scope, and the client secret or the federated assertion (workload identity, read from its file each time).
 */
import { afterEach, describe, expect, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { GatewayError } from '../errors/gateway-error.ts'
import { startMockEntra } from '../../test/helpers/mock-entra.ts'
import { tempDirs } from '../../test/helpers/temp-dirs.ts'
import { entraTokenSource, fetchEntraToken } from './entra.ts'

const tempDir = tempDirs('entra-')
const stops: (() => void)[] = []
afterEach(() => {
  for (const stop of stops.splice(0)) stop()
})
const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47'
const CLIENT = '04b07795-8ddb-461a-bbee-02f9e1bf7b46'
const SECRET = 'Q~8Q8~mock.client.secret_value'

function mock(options: Partial<Parameters<typeof startMockEntra>[0]> = {}) {
  const m = startMockEntra({ tenantId: TENANT, clientId: CLIENT, clientSecret: SECRET, ...options })
  stops.push(m.stop)
  return m
}

describe('Entra ID tokens', () => {
  test('client credentials with a secret; the token is cached', async () => {
    const entra = mock()
    const source = entraTokenSource('azure', { tenantId: TENANT, clientId: CLIENT, clientSecret: SECRET, authorityHost: entra.url })
    const token = await source.get()
    expect(typeof token === 'string' && entra.accepts(token)).toBe(true)
    expect(await source.get()).toBe(token)
    expect(entra.calls.token).toBe(1)
  })

  test('workload identity: the federated token file is the client assertion, read again on each fetch', async () => {
    const file = join(tempDir(), 'azure-identity-token')
    let projected = 'eyJ.first-projected.sig'
    writeFileSync(file, projected)
    const entra = mock({ clientSecret: undefined, federatedToken: () => projected })
    const settings = { tenantId: TENANT, clientId: CLIENT, federatedTokenFile: file, authorityHost: entra.url }
    expect(await fetchEntraToken('azure', settings)).toMatchObject({ value: expect.stringMatching(/^eyJ/) })
    projected = 'eyJ.rotated.sig'
    writeFileSync(file, projected)
    expect(await fetchEntraToken('azure', settings)).toMatchObject({ value: expect.stringMatching(/^eyJ/) })
  })

  test('a wrong secret is azure_credentials_refused (502) with the AADSTS reason, never the secret', async () => {
    const entra = mock()
    const error = await fetchEntraToken('azure', { tenantId: TENANT, clientId: CLIENT, clientSecret: 'Q~wrong-secret-value', authorityHost: entra.url })
    expect(error).toBeInstanceOf(GatewayError)
    expect(error).toMatchObject({ status: 502, code: 'azure_credentials_refused', provider: 'azure' })
    expect((error as GatewayError).message).toContain('AADSTS7000215')
    expect((error as GatewayError).message).not.toContain('wrong-secret')
  })

  test('a missing federated token file is azure_credentials_invalid; no endpoint is azure_credentials_unreachable (503)', async () => {
    expect(await fetchEntraToken('azure', { tenantId: TENANT, clientId: CLIENT, federatedTokenFile: join(tempDir(), 'none'), authorityHost: 'http://127.0.0.1:9' })).toMatchObject({
      code: 'azure_credentials_invalid',
    })
    expect(await fetchEntraToken('azure', { tenantId: TENANT, clientId: CLIENT, clientSecret: SECRET, authorityHost: 'http://127.0.0.1:9' })).toMatchObject({
      code: 'azure_credentials_unreachable',
      status: 503,
    })
  })
})

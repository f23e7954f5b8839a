/**
 * The OpenAPI document: every operation documents its responses (clients and schemathesis check answers against
 * them, scripts/test-openapi.sh), errors in the shape the endpoint answers, and the documented query constraints.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { startGateway, type RunningGateway } from '../helpers/gateway.ts'

type Operation = {
  responses?: Record<string, { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> }>
  parameters?: { name: string; schema?: Record<string, unknown> }[]
}
let gw: RunningGateway
let paths: Record<string, Record<string, Operation>>

beforeAll(async () => {
  gw = await startGateway({ GATEWAY_MASTER_KEY: 'master-key-for-openapi-tests-0123456789' })
  paths = ((await (await fetch(`${gw.url}/openapi/json`)).json()) as { paths: typeof paths }).paths
})
afterAll(() => gw.stop())

const operations = () => Object.entries(paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ id: `${method.toUpperCase()} ${path}`, op })))

test('every operation documents its 2xx response, and every one that can fail its errors', () => {
  const missing = operations()
    // Liveness is the one operation that cannot fail.
    .filter(({ id, op }) => !Object.keys(op.responses ?? {}).some((s) => s.startsWith('2')) || (id !== 'GET /health' && Object.keys(op.responses ?? {}).length < 2))
    .map((o) => o.id)
  expect(operations().length).toBeGreaterThan(30)
  expect(missing).toEqual([])
})

test('4xx answers are documented as GatewayError, in the Anthropic shape on /v1/messages', () => {
  const errorFields = (op: Operation) => Object.keys(op.responses?.['401']?.content?.['application/json']?.schema?.properties ?? {})
  expect(errorFields(paths['/admin/keys']!.get!)).toEqual(['error'])
  expect(errorFields(paths['/v1/chat/completions']!.post!)).toEqual(['error'])
  expect(errorFields(paths['/v1/messages']!.post!).sort()).toEqual(['error', 'type'])
})

test('documented query constraints are the enforced ones', async () => {
  const param = (path: string, name: string) => paths[path]!.get!.parameters!.find((p) => p.name === name)!.schema
  expect(param('/admin/audit/log', 'days')).toMatchObject({ minimum: 1, maximum: 3650 })
  expect(param('/admin/usage/summary', 'days')).toMatchObject({ minimum: 1, maximum: 3650 })
  expect(param('/admin/audit/detail', 'log_id')).toMatchObject({ minLength: 1 })
  const admin = (path: string) => fetch(`${gw.url}/admin${path}`, { headers: { authorization: 'Bearer master-key-for-openapi-tests-0123456789' } })
  for (const path of ['/audit/log?days=0', '/usage/summary?days=0']) expect({ path, status: (await admin(path)).status }).toEqual({ path, status: 400 })
  // One rule for empty values everywhere: not given.
  for (const path of ['/audit/log?days=', '/usage/summary?days=', '/keys?user_path=', '/audit/log?user_path='])
    expect({ path, status: (await admin(path)).status }).toEqual({ path, status: 200 })
})

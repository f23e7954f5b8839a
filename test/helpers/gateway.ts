/**
 * @module Starts a real gateway (Elysia on a real socket, port 0) for end-to-end tests.
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import pino from 'pino'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Gateway, type GatewayOptions } from '../../src/app.ts'
import { loadConfig } from '../../src/config/load.ts'
import { createHttpApp } from '../../src/http/server.ts'
import { createLogger, silentLogger } from '../../src/log/logger.ts'

export interface RunningGateway {
  url: string
  baseURL: string
  gateway: Gateway
  stop(): Promise<void>
}

export async function startGateway(env: Record<string, string>, options: Partial<Omit<GatewayOptions, 'config' | 'log'>> = {}): Promise<RunningGateway> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-test-'))
  const config = loadConfig({ env: { PORT: '0', HOST: '127.0.0.1', GATEWAY_DB_PATH: join(dir, 'gateway.db'), ...env }, cwd: dir })
  // TEST_LOG=debug shows the gateway's own log on stderr while debugging a test.
  const log = process.env.TEST_LOG ? createLogger(process.env.TEST_LOG, pino.destination(2)) : silentLogger
  const gateway = await Gateway.open({ config, log, ...options })
  const app = createHttpApp(gateway)
  app.listen({ hostname: '127.0.0.1', port: 0 })
  await gateway.start()
  const url = `http://127.0.0.1:${app.server!.port}`
  return {
    url,
    baseURL: `${url}/v1`,
    gateway,
    async stop() {
      await app.server?.stop(true)
      await gateway.shutdown()
    },
  }
}

/** Writes a gateway.yaml into a fresh temporary folder; pass its path as GATEWAY_CONFIG. */
export function writeGatewayYaml(yaml: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'gw-yaml-')), 'gateway.yaml')
  writeFileSync(file, yaml)
  return file
}

/**
 * @module A gateway in front of one mock upstream per provider family (OpenAI-compatible, Anthropic, Gemini), for
 * suites that manage their own hooks; new suites use `useGatewaySuite` (gateway-suite.ts).
 */
import { type GatewayWithMocks, startGatewayWithMocks } from './gateway-suite.ts'

export type EveryFamilyGateway = GatewayWithMocks

/** Starts the three mocks and a gateway configured for all of them; `env` adds to or overrides its variables. */
export function startEveryFamilyGateway(masterKey: string, env: Record<string, string> = {}): Promise<EveryFamilyGateway> {
  return startGatewayWithMocks({ master: masterKey, families: ['openai', 'anthropic', 'gemini'], env })
}

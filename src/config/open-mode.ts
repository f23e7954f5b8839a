/**
 * @module Start-up refuses to serve /v1 open by accident: without a master key nobody can create a managed key
 * (the admin API is closed), so /v1 would answer anyone who reaches the port, on every interface by default.
 * Running that way takes GATEWAY_ALLOW_OPEN=true (YAML `auth.allow_open`).
 */
import type { GatewayConfig } from './schema.ts'

/** Why the gateway must not start as configured; undefined when it may. */
export function openModeRefusal(config: GatewayConfig): string | undefined {
  // Identity token issuers are credentials too: /v1 is not open with them (a request without a token is refused).
  if (config.master_key || config.auth.allow_open || config.auth.jwt.issuers.length > 0) return undefined
  const where = `${config.server.host}:${config.server.port}`
  return [
    `Refusing to start: GATEWAY_MASTER_KEY is not set, so /v1 would be open to anyone who can reach ${where} and the admin API closed.`,
    'Set GATEWAY_MASTER_KEY (at least 32 characters, e.g. `openssl rand -hex 32`) and create managed keys for clients,',
    'or set GATEWAY_ALLOW_OPEN=true (YAML auth.allow_open) to serve /v1 without keys on purpose, e.g. bound to HOST=127.0.0.1. See docs/keys.md.',
  ].join('\n')
}

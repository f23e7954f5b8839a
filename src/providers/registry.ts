/**
 * @module Configured provider instances, each paired with the adapter that speaks its API.
 */
import { PROVIDER_TYPES, type ProviderType } from '../config/provider-catalog.ts'
import { providerBaseUrl } from '../config/cloud-environment.ts'
import type { GatewayConfig } from '../config/schema.ts'
import { cloudSecrets, upstreamAuthFor } from './upstream-auth.ts'
import type { ProviderAdapter, ProviderInstance } from './types.ts'

export interface RegisteredProvider {
  instance: ProviderInstance
  adapter: ProviderAdapter | undefined
}

export class ProviderRegistry {
  private readonly byName = new Map<string, RegisteredProvider>()
  /** The providers are fixed at start-up, so their keys are listed once. */
  private secretList?: readonly string[]
  private readonly configuredSecrets: string[] = []

  constructor(config: GatewayConfig, adapters: Readonly<Record<string, ProviderAdapter>>) {
    for (const [name, p] of Object.entries(config.providers)) {
      const type = p.type as ProviderType
      const info = PROVIDER_TYPES[type]
      const instance: ProviderInstance = {
        name,
        type,
        baseUrl: (providerBaseUrl(info, p) ?? '').replace(/\/+$/, ''),
        apiKey: p.api_key,
        staticModels: p.models,
        apiVersion: p.api_version,
        nativeResponses: info.nativeResponses === true,
        region: p.region,
        project: p.project,
        location: p.location,
        auth: upstreamAuthFor(name, info, p),
      }
      this.configuredSecrets.push(...cloudSecrets(p))
      this.byName.set(name, { instance, adapter: adapters[info.adapter] })
    }
  }

  get(name: string): RegisteredProvider | undefined {
    return this.byName.get(name)
  }

  has(name: string): boolean {
    return this.byName.has(name)
  }

  all(): RegisteredProvider[] {
    return [...this.byName.values()]
  }

  /** Every provider API key and configured cloud secret, so error messages and logs can be scrubbed of them (the same list on every call). */
  secrets(): readonly string[] {
    this.secretList ??= Object.freeze([...this.all().flatMap((p) => (p.instance.apiKey ? [p.instance.apiKey] : [])), ...this.configuredSecrets])
    return this.secretList
  }
}

/**
 * @module The one static registry of plugins and provider adapters. Static imports only: `bun build --compile`
 * embeds exactly what this file names. A test checks that it matches the plugin folders.
 */
import type { ProviderAdapter } from '../src/providers/types.ts'
import type { GatewayPlugin } from '../src/pipeline/types.ts'
import { apiKeyAuth } from './api-key-auth/plugin.ts'
import { auditSink } from './audit-sink/plugin.ts'
import { budget } from './budget/plugin.ts'
import { contextSlimmer } from './context-slimmer/plugin.ts'
import { failover } from './failover/plugin.ts'
import { guardrails } from './guardrails/plugin.ts'
import { ideRequestShapes } from './ide-request-shapes/plugin.ts'
import { modelAccess } from './model-access/plugin.ts'
import { anthropicAdapter } from './providers/anthropic/adapter.ts'
import { azureOpenaiAdapter } from './providers/azure-openai/adapter.ts'
import { geminiAdapter } from './providers/gemini/adapter.ts'
import { openaiCompatibleAdapter } from './providers/openai-compatible/adapter.ts'
import { requestValidator } from './request-validator/plugin.ts'
import { parameterNormaliser } from './parameter-normaliser/plugin.ts'
import { rateLimiter } from './rate-limiter/plugin.ts'
import { responseCache } from './response-cache/plugin.ts'
import { responseThreads } from './response-threads/plugin.ts'
import { singleTargetRouter } from './single-target-router/plugin.ts'
import { systemPrompt } from './system-prompt/plugin.ts'
import { usageMeter } from './usage-meter/plugin.ts'
import { virtualModelResolver } from './virtual-model-resolver/plugin.ts'

export const pluginRegistry: readonly GatewayPlugin[] = [
  apiKeyAuth,
  ideRequestShapes,
  requestValidator,
  virtualModelResolver,
  modelAccess,
  responseThreads,
  systemPrompt,
  contextSlimmer,
  parameterNormaliser,
  guardrails,
  responseCache,
  rateLimiter,
  budget,
  singleTargetRouter,
  failover,
  usageMeter,
  auditSink,
] as GatewayPlugin[]

export const providerAdapters: Readonly<Record<string, ProviderAdapter>> = {
  'openai-compatible': openaiCompatibleAdapter,
  'azure-openai': azureOpenaiAdapter,
  anthropic: anthropicAdapter,
  gemini: geminiAdapter,
}

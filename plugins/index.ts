/**
 * @module The one static registry of plugins and provider adapters, and where each plugin runs. Static imports
 * only: `bun build --compile` embeds exactly what this file names. A test checks that it matches the plugin folders.
 */
import type { ProviderAdapter } from '../src/providers/types.ts'
import type { PluginChain } from '../src/pipeline/types.ts'
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
import { bedrockAdapter } from './providers/bedrock/adapter.ts'
import { geminiAdapter } from './providers/gemini/adapter.ts'
import { vertexAdapter } from './providers/vertex/adapter.ts'
import { openaiCompatibleAdapter } from './providers/openai-compatible/adapter.ts'
import { cohereAdapter } from './providers/cohere/adapter.ts'
import { voyageAdapter } from './providers/voyage/adapter.ts'
import { requestValidator } from './request-validator/plugin.ts'
import { parameterNormaliser } from './parameter-normaliser/plugin.ts'
import { passthrough } from './passthrough/plugin.ts'
import { rateLimiter } from './rate-limiter/plugin.ts'
import { responseCache } from './response-cache/plugin.ts'
import { responseThreads } from './response-threads/plugin.ts'
import { singleTargetRouter } from './single-target-router/plugin.ts'
import { systemPrompt } from './system-prompt/plugin.ts'
import { usageMeter } from './usage-meter/plugin.ts'
import { virtualModelResolver } from './virtual-model-resolver/plugin.ts'

/**
 * The gateway's pipeline: per stage, its plugins in the order they run (the stages run in `STAGES` order). A
 * plugin's place is decided here, with the reason beside it where the order matters.
 */
export const pluginChain: PluginChain = {
  auth: [apiKeyAuth],
  resolve: [
    // Normalises IDE bodies to chat, so the validator checks the chat shape.
    ideRequestShapes,
    requestValidator,
    // Names the pass-through's model, which the resolver then resolves.
    passthrough,
    virtualModelResolver,
    // After the resolver: the resolved target selector counts as well as the requested name.
    modelAccess,
    responseThreads,
  ],
  // The normaliser last: it adapts the finished request to its target.
  rewrite: [systemPrompt, contextSlimmer, parameterNormaliser],
  guard: [guardrails],
  cache: [responseCache],
  budget: [rateLimiter, budget],
  // Failover replaces the single-target router when its feature is on.
  route: [singleTargetRouter, failover],
  observe: [usageMeter, auditSink],
}

export const providerAdapters: Readonly<Record<string, ProviderAdapter>> = {
  'openai-compatible': openaiCompatibleAdapter,
  'azure-openai': azureOpenaiAdapter,
  anthropic: anthropicAdapter,
  gemini: geminiAdapter,
  bedrock: bedrockAdapter,
  vertex: vertexAdapter,
  cohere: cohereAdapter,
  voyage: voyageAdapter,
}

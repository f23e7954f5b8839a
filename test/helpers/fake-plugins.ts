/**
 * @module Fake plugins for the pipeline's own unit tests (src/pipeline, src/workflows): each records which hooks
 * ran, with which settings, in a shared journal.
 */
import { z } from 'zod'
import { requestSlot } from '../../src/pipeline/context.ts'
import { CONTINUE, definePlugin, type CaptureNeeds, type GatewayPlugin, type PluginHooks } from '../../src/pipeline/types.ts'
import type { FeatureId } from '../../src/pipeline/snapshots.ts'

export const fakeConfig = z.object({ label: z.string().default('default') })

export interface FakeOptions {
  features?: FeatureId[]
  replaces?: string[]
  captures?: CaptureNeeds
  hooks?: (journal: string[]) => PluginHooks<z.infer<typeof fakeConfig>>
}

/** How many times each fake plugin's `create` ran. */
export const created = new Map<string, number>()

export function fakePlugin(id: string, journal: string[], options: FakeOptions = {}): GatewayPlugin {
  return definePlugin({
    manifest: {
      id,
      summary: id,
      features: options.features ?? [],
      replaces: options.replaces,
      captures: options.captures,
      config: fakeConfig,
    },
    create() {
      created.set(id, (created.get(id) ?? 0) + 1)
      return (
        options.hooks?.(journal) ?? {
          before(_ctx, settings) {
            journal.push(`${id}.before(${settings.label})`)
            return CONTINUE
          },
          onComplete(_ctx, outcome, settings) {
            journal.push(`${id}.onComplete(${settings.label}, ${outcome.status})`)
          },
        }
      )
    },
  }) as unknown as GatewayPlugin
}

/** A slot the fake plugins share, to see state survive the switch from the default to the selected pipeline. */
export const noteSlot = requestSlot<string>('fake-note')

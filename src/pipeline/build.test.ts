import { describe, expect, test } from 'bun:test'
import { makeContext, makeDeps } from '../../test/helpers/plugin-harness.ts'
import { created, fakePlugin } from '../../test/helpers/fake-plugins.ts'
import { buildPipeline, createPlugins, PluginConfigError, type PipelineCore, type WorkflowDefinition } from './build.ts'
import { chatApi } from '../protocols/chat/shape.ts'
import { isCacheable } from '../protocols/endpoints.ts'

const deps = await makeDeps()
const core: PipelineCore = { logging: { log_bodies: false, log_headers: false }, prices: deps.usage.prices }
const features = { audit: true, budget: false, cache: false, failover: false, guardrails: false, usage: true }
const workflow = (over: Partial<WorkflowDefinition> = {}): WorkflowDefinition => ({ id: 'wf', versionId: 'wfv', features, plugins: {}, ...over })

describe('buildPipeline', () => {
  test('runs the stages in order and each stage in its chain order; splits routing (auth, resolve) from policy hooks', () => {
    const journal: string[] = []
    const plugins = createPlugins(
      {
        rewrite: [fakePlugin('early-rewrite', journal), fakePlugin('late-rewrite', journal)],
        resolve: [fakePlugin('resolve', journal)],
        auth: [fakePlugin('auth', journal)],
      },
      deps,
    )
    const built = buildPipeline(workflow(), plugins, core)
    expect(built.pluginIds).toEqual(['auth', 'resolve', 'early-rewrite', 'late-rewrite'])
    expect(built.routingHooks.map((h) => h.pluginId)).toEqual(['auth', 'resolve'])
    expect(built.policyHooks.map((h) => h.pluginId)).toEqual(['early-rewrite', 'late-rewrite'])
  })

  test('feature-gated plugins join only when their feature is on; `replaces` removes the replaced plugin', () => {
    const plugins = createPlugins({ route: [fakePlugin('router', []), fakePlugin('failover-like', [], { features: ['failover'], replaces: ['router'] })] }, deps)
    expect(buildPipeline(workflow(), plugins, core).pluginIds).toEqual(['router'])
    expect(buildPipeline(workflow({ features: { ...features, failover: true } }), plugins, core).pluginIds).toEqual(['failover-like'])
  })

  test('hooks are bound to the workflow settings; plugins are created once however many pipelines use them', () => {
    const journal: string[] = []
    created.delete('settings-reader')
    const plugins = createPlugins({ rewrite: [fakePlugin('settings-reader', journal)] }, deps)
    const a = buildPipeline(workflow({ plugins: { 'settings-reader': { label: 'a' } } }), plugins, core)
    const b = buildPipeline(workflow({ plugins: { 'settings-reader': { label: 'b' } } }), plugins, core)
    const ctx = makeContext()
    a.policyHooks[0]!.before(ctx)
    b.policyHooks[0]!.before(ctx)
    expect(journal).toEqual(['settings-reader.before(a)', 'settings-reader.before(b)'])
    expect(created.get('settings-reader')).toBe(1)
  })

  test('invalid settings and two route plugins are configuration errors', () => {
    const plugins = createPlugins({ rewrite: [fakePlugin('p', [])] }, deps)
    expect(() => buildPipeline(workflow({ plugins: { p: { label: 5 } } }), plugins, core)).toThrow(PluginConfigError)
    const route = (id: string) => fakePlugin(id, [], { hooks: () => ({ dispatch: async () => new Response('x') }) })
    expect(() => buildPipeline(workflow(), createPlugins({ route: [route('r1'), route('r2')] }, deps), core)).toThrow('two route plugins')
  })

  test('the capture is the union of the plugins’ needs, per endpoint; audit detail follows the logging switches', () => {
    const plugins = createPlugins(
      {
        cache: [fakePlugin('cache-like', [], { captures: { routeAnswer: isCacheable } })],
        guard: [fakePlugin('thread-like', [], { captures: { responseBody: (row) => row.api === chatApi } })],
        budget: [fakePlugin('limit-like', [], { captures: { usage: 'all' } })],
        observe: [fakePlugin('audit-like', [], { captures: { auditDetail: true } })],
      },
      deps,
    )
    const quiet = buildPipeline(workflow(), plugins, core)
    expect(quiet.capture('chat.completions')).toEqual({ responseBody: true, usage: true, pricedUsage: false, routeAnswer: true, bodies: false, headers: false })
    expect(quiet.capture('responses')).toEqual({ responseBody: false, usage: true, pricedUsage: false, routeAnswer: false, bodies: false, headers: false })
    const logging = buildPipeline(workflow(), plugins, { ...core, logging: { log_bodies: true, log_headers: true } })
    expect(logging.capture('responses')).toEqual({ responseBody: true, usage: true, pricedUsage: false, routeAnswer: false, bodies: true, headers: true })
    expect(buildPipeline(workflow(), createPlugins({ observe: [fakePlugin('nothing', [])] }, deps), core).capture('chat.completions')).toEqual({
      responseBody: false,
      usage: false,
      pricedUsage: false,
      routeAnswer: false,
      bodies: false,
      headers: false,
    })
  })
})

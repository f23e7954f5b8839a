import { describe, expect, test } from 'bun:test'
import { GatewayError } from '../errors/gateway-error.ts'
import { createLogger } from '../log/logger.ts'
import { makeDeps } from '../../test/helpers/plugin-harness.ts'
import { fakePlugin, noteSlot } from '../../test/helpers/fake-plugins.ts'
import { buildPipeline, createPlugins, type BuiltPipeline, type PipelineCore, type PluginInstance } from './build.ts'
import { RequestContext } from './context.ts'
import { runPipeline } from './run.ts'
import { isCacheable } from '../protocols/endpoints.ts'
import { CONTINUE, respondWithError, type Decision, type Outcome, type PluginHooks } from './types.ts'

const deps = await makeDeps()
const core: PipelineCore = { logging: { log_bodies: false, log_headers: false }, prices: deps.usage.prices }
const features = { audit: true, budget: false, cache: false, failover: false, guardrails: false, usage: true }
type Settings = { label: string }

function request(lines: Record<string, unknown>[] = []) {
  const log = createLogger('info', { write: (line: string) => void lines.push(JSON.parse(line)) })
  return new RequestContext({
    endpoint: 'chat.completions',
    method: 'POST',
    path: '/v1/chat/completions',
    headers: new Headers({ 'x-request-id': 'req-1' }),
    clientIp: '127.0.0.1',
    log,
    clientSignal: new AbortController().signal,
  })
}

/** A default and a selected pipeline over the same plugin instances, with different settings. */
function pipelines(plugins: PluginInstance[]) {
  const settings = (label: string) => Object.fromEntries(plugins.map((p) => [p.plugin.manifest.id, { label }]))
  const fallback = buildPipeline({ id: 'wf_default', versionId: 'wfv_default', features, plugins: settings('default') }, plugins, core)
  const selected = buildPipeline({ id: 'wf_scoped', versionId: 'wfv_scoped', features, plugins: settings('scoped') }, plugins, core)
  return { fallback, selected }
}

function run(ctx: RequestContext, fallback: BuiltPipeline, selected: BuiltPipeline = fallback) {
  return runPipeline(
    ctx,
    { fallback, select: () => selected },
    { catalog: deps.catalog, files: undefined as never, filesConfig: undefined as never, uploads: undefined as never, batches: undefined as never, keepaliveMs: 60_000 },
  )
}

const route = (journal: string[], answer: (ctx: RequestContext) => Promise<Response>) =>
  fakePlugin('route', journal, {
    hooks: (j) => ({
      dispatch: answer,
      onComplete(_ctx, outcome, s: Settings) {
        j.push(`route.onComplete(${s.label}, ${outcome.status})`)
      },
    }),
  })

/** A fake rewriter `a` and the route plugin answering with `answer`. */
const rewriteThenRoute = (journal: string[], answer: (ctx: RequestContext) => Promise<Response>) =>
  createPlugins({ rewrite: [fakePlugin('a', journal)], route: [route(journal, answer)] }, deps)

const completions = (journal: string[]) => journal.filter((line) => line.includes('onComplete'))

describe('runPipeline', () => {
  test('routing hooks run with the default workflow, later hooks with the selected one; slot state carries over', async () => {
    const journal: string[] = []
    const remembering = fakePlugin('remember', journal, {
      hooks: (j) => ({
        before(ctx, s: Settings) {
          ctx.setState(noteSlot, `noted under ${s.label}`)
          return CONTINUE
        },
        onComplete(ctx, _outcome, s: Settings) {
          j.push(`remember.onComplete(${s.label}): ${ctx.state(noteSlot)}`)
        },
      }),
    })
    const plugins = createPlugins(
      {
        auth: [fakePlugin('auth', journal)],
        resolve: [remembering],
        rewrite: [fakePlugin('rewrite', journal)],
        route: [route(journal, async () => Response.json({ ok: true }))],
      },
      deps,
    )
    const { fallback, selected } = pipelines(plugins)
    const ctx = request()
    const res = await run(ctx, fallback, selected)
    expect(res.status).toBe(200)
    expect(ctx.workflowVersionId).toBe('wfv_scoped')
    expect(journal).toEqual([
      'auth.before(default)',
      'rewrite.before(scoped)',
      'auth.onComplete(scoped, 200)',
      'remember.onComplete(scoped): noted under default',
      'rewrite.onComplete(scoped, 200)',
      'route.onComplete(scoped, 200)',
    ])
  })

  test('every onComplete runs exactly once: answered, refused early, failed upstream, stream read to the end, stream cancelled', async () => {
    const cases: [string, (j: string[]) => PluginInstance[], (res: Response) => Promise<unknown>][] = [
      ['answered', (j) => rewriteThenRoute(j, async () => Response.json({})), (r) => r.text()],
      [
        'refused',
        (j) =>
          createPlugins(
            {
              auth: [
                fakePlugin('refuse', j, {
                  hooks: () => ({
                    before: (ctx) => respondWithError(ctx, new GatewayError({ status: 401, type: 'authentication_error', message: 'no' })),
                    onComplete: () => void j.push('refuse.onComplete'),
                  }),
                }),
              ],
              rewrite: [fakePlugin('a', j)],
              route: [route(j, async () => Response.json({}))],
            },
            deps,
          ),
        (r) => r.text(),
      ],
      ['upstream failed', (j) => rewriteThenRoute(j, async () => Promise.reject(new GatewayError({ status: 502, type: 'provider_error', message: 'down' }))), (r) => r.text()],
      [
        'stream ended',
        (j) => rewriteThenRoute(j, async () => new Response('data: {"choices":[]}\n\ndata: [DONE]\n\n', { headers: { 'content-type': 'text/event-stream' } })),
        (r) => r.text(),
      ],
      [
        'stream cancelled',
        (j) =>
          rewriteThenRoute(
            j,
            async () =>
              new Response(new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode('data: {}\n\n')) }), { headers: { 'content-type': 'text/event-stream' } }),
          ),
        async (r) => {
          const reader = r.body!.getReader()
          await reader.read()
          await reader.cancel()
        },
      ],
    ]
    for (const [name, make, consume] of cases) {
      const journal: string[] = []
      const { fallback } = pipelines(make(journal))
      const ctx = request()
      await consume(await run(ctx, fallback))
      await Bun.sleep(1)
      const done = completions(journal)
      expect({ name, count: done.length }).toEqual({ name, count: fallback.onComplete.length })
      expect(new Set(done).size).toBe(done.length)
    }
  })

  test('a hook that throws is a 500 that still completes and is logged with the request id', async () => {
    const journal: string[] = []
    const lines: Record<string, unknown>[] = []
    const thrower = fakePlugin('thrower', journal, {
      hooks: () => ({
        before() {
          throw new Error('bug in a plugin')
        },
      }),
    })
    const plugins = createPlugins({ auth: [fakePlugin('auth', journal)], rewrite: [thrower], route: [route(journal, async () => Response.json({}))] }, deps)
    const { fallback } = pipelines(plugins)
    const ctx = request(lines)
    const res = await run(ctx, fallback)
    expect(res.status).toBe(500)
    expect(ctx.error?.status).toBe(500)
    expect(completions(journal)).toEqual(['auth.onComplete(default, 500)', 'route.onComplete(default, 500)'])
    const failure = lines.find((l) => l.msg === 'pipeline failed')!
    expect(failure).toMatchObject({ request_id: 'req-1', workflow_version: 'wfv_default' })
  })

  test('an onComplete that throws is logged; the others still run', async () => {
    const journal: string[] = []
    const lines: Record<string, unknown>[] = []
    const failing = fakePlugin('failing', journal, {
      hooks: () =>
        ({
          onComplete() {
            throw new Error('sink broke')
          },
        }) satisfies PluginHooks<Settings>,
    })
    const plugins = createPlugins({ rewrite: [failing], route: [route(journal, async () => Response.json({}))], observe: [fakePlugin('after', journal)] }, deps)
    const { fallback } = pipelines(plugins)
    const ctx = request(lines)
    await (await run(ctx, fallback)).text()
    expect(completions(journal)).toEqual(['route.onComplete(default, 200)', 'after.onComplete(default, 200)'])
    expect(lines.find((l) => l.msg === 'onComplete failed')).toMatchObject({ plugin: 'failing', request_id: 'req-1' })
  })

  test('an onResponse that returns an error answers with it and records it', async () => {
    const journal: string[] = []
    const blocker = fakePlugin('blocker', journal, {
      hooks: () => ({ onResponse: () => new GatewayError({ status: 400, type: 'invalid_request_error', code: 'blocked', message: 'blocked' }) }),
    })
    const plugins = createPlugins({ guard: [blocker], route: [route(journal, async () => Response.json({ ok: true }))] }, deps)
    const { fallback } = pipelines(plugins)
    const ctx = request()
    const res = await run(ctx, fallback)
    expect(res.status).toBe(400)
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('blocked')
    expect(ctx.error?.code).toBe('blocked')
    expect(completions(journal)).toEqual(['route.onComplete(default, 400)'])
  })
})

describe("the client's address", () => {
  const withAddress = (reads: string[]) =>
    new RequestContext({
      endpoint: 'chat.completions',
      method: 'POST',
      path: '/v1/chat/completions',
      headers: new Headers(),
      clientIp: () => {
        reads.push('read')
        return '10.0.0.7'
      },
      log: createLogger('silent'),
      clientSignal: new AbortController().signal,
    })
  const answering = (journal: string[]) => createPlugins({ route: [route(journal, async () => Response.json({}))] }, deps)

  test('is read once, before the pipeline runs its hooks, when the workflow audits (the entry is made at the end)', async () => {
    const reads: string[] = []
    const { fallback } = pipelines(answering([]))
    const ctx = withAddress(reads)
    await (await run(ctx, fallback)).text()
    expect(reads).toEqual(['read'])
    expect(ctx.clientIp).toBe('10.0.0.7')
    expect(reads).toEqual(['read'])
  })

  test('is not read at all when nothing asks for it', async () => {
    const reads: string[] = []
    const plugins = answering([])
    const quiet = buildPipeline({ id: 'wf', versionId: 'wfv', features: { ...features, audit: false }, plugins: {} }, plugins, core)
    await (await run(withAddress(reads), quiet)).text()
    expect(reads).toEqual([])
  })
})

describe('a before hook that answers in the upstream’s place', () => {
  /** An onResponse hook that refuses answers containing `forbidden`, as an output guardrail does. */
  const outputGuard = (journal: string[]) =>
    fakePlugin('output-guard', journal, {
      hooks: (j) => ({
        async onResponse(_ctx, response) {
          const text = await response.text()
          j.push(`output-guard saw ${text}`)
          if (text.includes('forbidden')) return new GatewayError({ status: 400, type: 'invalid_request_error', code: 'output_blocked', message: 'blocked' })
          return new Response(text, { status: response.status, headers: response.headers })
        },
      }),
    })
  const answering = (journal: string[], decision: 'answer' | 'respond', text: string) =>
    fakePlugin('answering', journal, {
      hooks: () => ({
        before: () => ({ kind: decision, response: Response.json({ text }) }) as Decision,
      }),
    })
  const upstream = (journal: string[]) => route(journal, async () => Response.json({ text: 'from upstream' }))

  test('`answer` passes every onResponse hook, as the upstream’s answer would, and the route is not called', async () => {
    const journal: string[] = []
    const plugins = createPlugins({ guard: [outputGuard(journal)], cache: [answering(journal, 'answer', 'forbidden words')], route: [upstream(journal)] }, deps)
    const { fallback } = pipelines(plugins)
    const ctx = request()
    const res = await run(ctx, fallback)
    expect(res.status).toBe(400)
    expect(ctx.error?.code).toBe('output_blocked')
    expect(journal).toContain('output-guard saw {"text":"forbidden words"}')
    expect(journal).not.toContain('route.onComplete(default, 200)')
    expect(journal).toContain('route.onComplete(default, 400)')
  })

  test('an `answer` the onResponse hooks let through reaches the client as they left it', async () => {
    const plugins = createPlugins({ guard: [outputGuard([])], cache: [answering([], 'answer', 'fine')], route: [upstream([])] }, deps)
    const res = await run(request(), pipelines(plugins).fallback)
    expect(await res.json()).toEqual({ text: 'fine' })
  })

  test('`respond` (a refusal) ends the request as it is: no onResponse hook sees it', async () => {
    const journal: string[] = []
    const plugins = createPlugins({ guard: [outputGuard(journal)], cache: [answering(journal, 'respond', 'forbidden words')], route: [upstream(journal)] }, deps)
    const res = await run(request(), pipelines(plugins).fallback)
    expect(res.status).toBe(200)
    expect(journal.filter((line) => line.startsWith('output-guard'))).toEqual([])
  })
})

describe('the route answer, captured for plugins that ask (a cache)', () => {
  /** An onResponse hook that rewrites every answer, JSON or stream, as a masking guardrail or an unwrapping plugin does. */
  const rewriting = fakePlugin('rewriting', [], {
    hooks: () => ({
      async onResponse(_ctx, response) {
        const text = (await response.text()).replaceAll('secret', '[MASKED]')
        return new Response(text, { status: response.status, headers: response.headers })
      },
    }),
  })
  const keeper = (outcomes: Outcome[]) =>
    fakePlugin('keeper', [], { captures: { routeAnswer: isCacheable }, hooks: () => ({ onComplete: (_ctx, outcome) => void outcomes.push(outcome) }) })

  test('a JSON answer is kept as the route stage gave it, before the onResponse hooks changed it', async () => {
    const outcomes: Outcome[] = []
    const plugins = createPlugins({ guard: [rewriting], cache: [keeper(outcomes)], route: [route([], async () => Response.json({ text: 'a secret' }))] }, deps)
    const res = await run(request(), pipelines(plugins).fallback)
    expect(await res.json()).toEqual({ text: 'a [MASKED]' })
    expect(outcomes[0]!.routeAnswer).toEqual({ text: 'a secret' })
  })

  test('a stream is folded as the route stage gave it', async () => {
    const outcomes: Outcome[] = []
    const frames = [
      '{"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"a sec"},"finish_reason":null}]}',
      '{"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"ret"},"finish_reason":"stop"}]}',
    ]
    const stream = async () => new Response(`${frames.map((f) => `data: ${f}\n\n`).join('')}data: [DONE]\n\n`, { headers: { 'content-type': 'text/event-stream' } })
    const plugins = createPlugins({ guard: [rewriting], cache: [keeper(outcomes)], route: [route([], stream)] }, deps)
    const ctx = request()
    ctx.stream = true
    await (await run(ctx, pipelines(plugins).fallback)).text()
    await Bun.sleep(1)
    expect(outcomes[0]!.routeAnswer).toMatchObject({ object: 'chat.completion', choices: [{ message: { content: 'a secret' }, finish_reason: 'stop' }] })
  })

  test('a `before` hook’s answer is kept as the hook gave it, before the onResponse hooks', async () => {
    const outcomes: Outcome[] = []
    const answering = fakePlugin('answering', [], {
      captures: { routeAnswer: isCacheable },
      hooks: () => ({
        before: () => ({ kind: 'answer', response: Response.json({ text: 'a cached secret' }) }),
        onComplete: (_ctx, outcome) => void outcomes.push(outcome),
      }),
    })
    const plugins = createPlugins({ guard: [rewriting], cache: [answering], route: [route([], async () => Response.json({ text: 'upstream' }))] }, deps)
    const res = await run(request(), pipelines(plugins).fallback)
    expect(await res.json()).toEqual({ text: 'a cached [MASKED]' })
    expect(outcomes[0]!.routeAnswer).toEqual({ text: 'a cached secret' })
  })

  test('nothing is captured for a pipeline whose plugins do not ask', async () => {
    const outcomes: Outcome[] = []
    const watcher = fakePlugin('watcher', [], { hooks: () => ({ onComplete: (_ctx, outcome) => void outcomes.push(outcome) }) })
    const plugins = createPlugins({ cache: [watcher], route: [route([], async () => Response.json({ text: 'a secret' }))] }, deps)
    await (await run(request(), pipelines(plugins).fallback)).text()
    expect(outcomes[0]!.routeAnswer).toBeUndefined()
  })
})

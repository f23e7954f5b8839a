/**
 * The single binary: `bun run build` produces dist/gateway, which runs from an empty directory with nothing
 * beside it and serves real requests and the dashboard.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { copyFileSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import OpenAI from 'openai'
import { startMockOpenAI, type MockUpstream } from '../helpers/mock-openai-upstream.ts'
import { anonymousMb, rssMb } from '../helpers/gateway-process.ts'

const root = join(import.meta.dir, '..', '..')
let mock: MockUpstream
let child: ReturnType<typeof Bun.spawn> | undefined
let baseURL = ''
/** The binary's resident memory (MiB) once it has started and settled, before any test sent it a request. */
let idleRssMb = 0
/** The part of it that is the process's own (MiB): not the executable's pages. */
let idleAnonymousMb = 0
/** Everything the binary logged, once it has exited. */
let output: Promise<string>

async function freePort(): Promise<number> {
  const probe = Bun.serve({ port: 0, fetch: () => new Response() })
  const port = probe.port!
  probe.stop(true)
  return port
}

beforeAll(async () => {
  const build = Bun.spawnSync(['bun', 'run', 'build'], { cwd: root, stdout: 'pipe', stderr: 'pipe' })
  if (build.exitCode !== 0) throw new Error(`build failed: ${build.stderr.toString()}`)
  const dir = mkdtempSync(join(tmpdir(), 'gw-binary-'))
  copyFileSync(join(root, 'dist', 'gateway'), join(dir, 'gateway'))
  mock = startMockOpenAI()
  const port = await freePort()
  child = Bun.spawn([join(dir, 'gateway')], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      GATEWAY_MASTER_KEY: 'binary-master-key-0123456789abcdef',
      OPENAI_API_KEY: 'sk-x',
      OPENAI_BASE_URL: mock.url,
      LOG_LEVEL: 'warn',
    },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  output = new Response(child.stdout as ReadableStream).text()
  baseURL = `http://127.0.0.1:${port}`
  for (let i = 0; i < 100; i++) {
    const ok = await fetch(`${baseURL}/health`).then(
      (r) => r.ok,
      () => false,
    )
    if (ok) {
      await Bun.sleep(1500)
      idleRssMb = rssMb(child.pid)
      idleAnonymousMb = anonymousMb(child.pid)
      return
    }
    await Bun.sleep(50)
  }
  throw new Error('the binary did not start')
}, 60_000)

afterAll(async () => {
  child?.kill('SIGTERM')
  await child?.exited
  mock?.stop()
})

test('the compiled binary serves health, the OpenAPI document and a chat completion', async () => {
  expect((await fetch(`${baseURL}/health`)).status).toBe(200)
  const spec = (await (await fetch(`${baseURL}/openapi/json`)).json()) as { paths: Record<string, unknown> }
  expect(Object.keys(spec.paths)).toContain('/v1/chat/completions')
  const client = new OpenAI({ apiKey: 'binary-master-key-0123456789abcdef', baseURL: `${baseURL}/v1`, maxRetries: 0 })
  const completion = await client.chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'echo:from the binary' }] })
  expect(completion.choices[0]!.message.content).toBe('from the binary')
  const stream = client.chat.completions.stream({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'echo:streamed' }] })
  expect((await stream.finalChatCompletion()).choices[0]!.message.content).toBe('streamed')
})

// docs/workers.md, "Memory per process": 80.1-81.5 MiB here, 28.4-29.0 of it anonymous, at the issue 32 pass
// (write thread without drizzle, OpenAPI-only schemas built on demand, bytecode in the binary); 82.5-84.4 at c7e25d9,
// 90.5-90.6 when that tree is built without splitting its chunks (every package loaded on demand, such as the MCP SDK
// or OpenTelemetry, is then parsed at start). A feature that adds megabytes to every idle gateway shows here: load it
// on first use, or raise the bound knowingly.
test('the binary idles within its memory budget: code loaded on demand is not parsed at start', () => {
  expect(idleRssMb).toBeGreaterThan(20)
  expect(idleRssMb).toBeLessThan(85)
  expect(idleAnonymousMb).toBeLessThan(33)
})

test('`gateway healthcheck` exits 0 against a live gateway and 1 when none listens', async () => {
  const binary = join(root, 'dist', 'gateway')
  const port = new URL(baseURL).port
  const live = Bun.spawn([binary, 'healthcheck'], { env: { PORT: port }, stdout: 'ignore', stderr: 'ignore' })
  expect(await live.exited).toBe(0)
  const dead = Bun.spawn([binary, 'healthcheck'], { env: { PORT: String(await freePort()) }, stdout: 'ignore', stderr: 'ignore' })
  expect(await dead.exited).toBe(1)
})

test('the binary serves the dashboard with its embedded script and styles', async () => {
  const html = await fetch(`${baseURL}/dashboard`)
  expect(html.status).toBe(200)
  // Served by the gateway from the embedded files, so with its headers (src/http/dashboard-bundle.ts).
  expect(html.headers.get('content-security-policy')).toContain("script-src 'self'")
  const page = await html.text()
  const assets = [...page.matchAll(/(?:src|href)="(\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]!)
  expect(assets.every((a) => a.startsWith('/dashboard/assets/'))).toBe(true)
  expect(assets.some((a) => a.endsWith('.js')) && assets.some((a) => a.endsWith('.css'))).toBe(true)
  for (const asset of assets) {
    const res = await fetch(`${baseURL}${asset}`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(asset.endsWith('.js') ? /javascript/ : /text\/css/)
  }
})

test('the binary writes audit entries through its write thread', async () => {
  let stats = { written: 0 }
  for (let i = 0; i < 50 && stats.written < 2; i++) {
    await Bun.sleep(50)
    stats = (await (await fetch(`${baseURL}/admin/audit/writer-stats`, { headers: { authorization: 'Bearer binary-master-key-0123456789abcdef' } })).json()) as { written: number }
  }
  expect(stats.written).toBeGreaterThanOrEqual(2)
  const page = (await (
    await fetch(`${baseURL}/admin/audit/log?path=/v1/chat/completions`, { headers: { authorization: 'Bearer binary-master-key-0123456789abcdef' } })
  ).json()) as { total: number }
  expect(page.total).toBe(2)
})

test('the binary counts tokens on its tokenizer thread (an entrypoint of its own)', async () => {
  const count = async () => {
    const res = await fetch(`${baseURL}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: { authorization: 'Bearer binary-master-key-0123456789abcdef', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'How many tokens is this sentence?' }] }),
    })
    expect(res.headers.get('x-gateway-estimated')).toBe('true')
    return ((await res.json()) as { input_tokens: number }).input_tokens
  }
  // 7 o200k tokens + 3 for the message. Without the thread (or while it loads, past 1 s) the answer is
  // characters / 4 + 3 = 12, so the loop ends only once the thread counts.
  let tokens = await count()
  for (let i = 0; i < 80 && tokens !== 10; i++) {
    await Bun.sleep(250)
    tokens = await count()
  }
  expect(tokens).toBe(10)
}, 30_000)

test('SIGTERM stops the binary cleanly; its worker threads (the write thread, loading its backend when opened) never fell back', async () => {
  child!.kill('SIGTERM')
  expect(await child!.exited).toBe(0)
  expect(await output).not.toContain('write thread unavailable')
})

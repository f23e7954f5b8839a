/**
 * The gateway process's own lines: "listening" (with its URL, the dashboard URL and the providers) and the
 * model-list warning reach stdout while the process runs, not after 4 KiB of logs piled up; shutdown lines
 * arrive before it exits; the access log writes one line per request when asked for.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startMockOpenAI, type MockUpstream } from '../helpers/mock-openai-upstream.ts'

const ROOT = join(import.meta.dir, '..', '..')
let mock: MockUpstream
beforeAll(() => {
  mock = startMockOpenAI()
}, 20_000)
afterAll(() => mock.stop())

/** The process's stdout as JSON lines; `next` waits for the first line after the previous match that matches. */
function jsonLines(stdout: ReadableStream<Uint8Array>) {
  const reader = stdout.getReader()
  const decoder = new TextDecoder()
  const lines: Record<string, any>[] = []
  let rest = ''
  let cursor = 0
  return {
    lines,
    async next(until: (line: Record<string, any>) => boolean, ms = 8000): Promise<Record<string, any>> {
      const deadline = Date.now() + ms
      for (;;) {
        while (cursor < lines.length) {
          const line = lines[cursor++]!
          if (until(line)) return line
        }
        const read = await Promise.race([reader.read(), Bun.sleep(Math.max(0, deadline - Date.now())).then(() => undefined)])
        if (!read || read.done) throw new Error(`no matching line within ${ms} ms; got: ${JSON.stringify(lines)}`)
        rest += decoder.decode(read.value, { stream: true })
        const parts = rest.split('\n')
        rest = parts.pop()!
        for (const part of parts) if (part.trim()) lines.push(JSON.parse(part))
      }
    },
  }
}

test('lifecycle lines reach stdout at once; the access log has one line per request', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-lifecycle-'))
  const proc = Bun.spawn(['bun', 'src/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_FORMAT: 'json',
      GATEWAY_DB_PATH: join(dir, 'g.db'),
      GATEWAY_MASTER_KEY: 'lifecycle-master-key-0123456789abcd',
      OPENAI_API_KEY: 'sk-lifecycle-0123456789',
      OPENAI_BASE_URL: mock.url,
      ANTHROPIC_API_KEY: 'sk-ant-lifecycle',
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:9/v1', // nothing listens: its model list cannot be fetched
      LOGGING_ACCESS_LOG: 'true',
    },
    stdout: 'pipe',
    stderr: 'inherit',
  })
  const out = jsonLines(proc.stdout)
  try {
    const listening = await out.next((l) => String(l.msg).startsWith('gateway listening'))
    expect(listening.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(listening.dashboard).toBe(`${listening.url}/dashboard`)
    expect(listening.providers).toEqual({ openai: 'openai', anthropic: 'anthropic' })
    expect(JSON.stringify(listening)).not.toContain('sk-lifecycle')
    const models = await out.next((l) => String(l.msg).startsWith('model lists loaded'))
    expect(models.level).toBe(40)
    expect(models.not_fetched).toEqual(['anthropic'])
    expect(models.fetched).toEqual(['openai'])

    const res = await fetch(`${listening.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer lifecycle-master-key-0123456789abcd', 'content-type': 'application/json', 'x-request-id': 'lifecycle-req-1' },
      body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    })
    expect(res.status).toBe(200)
    await res.text()
    proc.kill('SIGTERM')
    // The access line was buffered with the request path's lines; shutdown writes it out before the lifecycle lines.
    const access = await out.next((l) => l.msg === 'request')
    expect(access).toMatchObject({ request_id: 'lifecycle-req-1', status: 200, model: 'openai/gpt-4o-mini', key_id: 'master', endpoint: 'chat.completions' })
    expect(access.duration_ms).toBeGreaterThan(0)
    await out.next((l) => String(l.msg).startsWith('shutting down'))
    await out.next((l) => l.msg === 'stopped')
    expect(await proc.exited).toBe(0)
  } finally {
    proc.kill()
  }
}, 20_000)

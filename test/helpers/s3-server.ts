/**
 * @module A real S3-compatible server for tests: moto's server mode (PyPI `moto[server]`, installed into .venv by
 * scripts/python-venv.sh), started on a free loopback port, or the one `scripts/s3-server.sh` started when
 * S3_TEST_ENDPOINT names it (.ci/run). Each caller makes buckets of its own, so suites can share one server.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'

const MOTO = join(import.meta.dir, '../../.venv/bin/moto_server')

/** moto accepts any credentials; these are what the gateway is given. */
export const S3_TEST_CREDENTIALS = { accessKeyId: 'test-access-key', secretAccessKey: 'test-secret-key', region: 'us-east-1' }

export interface RunningS3 {
  /** `http://127.0.0.1:<port>` */
  endpoint: string
  /** Makes a bucket with a fresh name and returns the name. */
  createBucket(): Promise<string>
  stop(): Promise<void>
}

export function s3ServerAvailable(): boolean {
  return Boolean(process.env.S3_TEST_ENDPOINT) || existsSync(MOTO)
}

export async function startS3Server(): Promise<RunningS3> {
  const shared = process.env.S3_TEST_ENDPOINT
  if (shared) return running(shared, async () => {})
  const probe = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
  const port = probe.port!
  probe.stop(true)
  const proc = Bun.spawn([MOTO, '-H', '127.0.0.1', '-p', String(port)], { stdout: 'ignore', stderr: 'ignore' })
  const endpoint = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 30_000
  for (;;) {
    const up = await fetch(`${endpoint}/`).then(
      (r) => r.ok,
      () => false,
    )
    if (up) break
    if (Date.now() > deadline || proc.exitCode !== null) {
      proc.kill()
      throw new Error(`moto_server did not start on ${endpoint}`)
    }
    await Bun.sleep(100)
  }
  return running(endpoint, async () => {
    proc.kill()
    await proc.exited
  })
}

function running(endpoint: string, stop: () => Promise<void>): RunningS3 {
  return {
    endpoint,
    async createBucket() {
      const name = `gateway-test-${crypto.randomUUID().slice(0, 13)}`
      const res = await fetch(`${endpoint}/${name}`, { method: 'PUT' })
      if (!res.ok) throw new Error(`creating bucket ${name}: ${res.status} ${await res.text()}`)
      return name
    },
    stop,
  }
}

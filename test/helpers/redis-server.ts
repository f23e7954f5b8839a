/**
 * @module Starts a throwaway redis-server (Debian package) on a free loopback port for integration tests.
 */
export interface RunningRedis {
  url: string
  stop(): Promise<void>
}

export function redisAvailable(): boolean {
  return Bun.which('redis-server') !== null
}

export async function startRedis(): Promise<RunningRedis> {
  const probe = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
  const port = probe.port!
  probe.stop(true)
  const proc = Bun.spawn(['redis-server', '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdout: 'ignore', stderr: 'ignore' })
  const url = `redis://127.0.0.1:${port}`
  for (let i = 0; i < 100; i++) {
    try {
      const socket = await Bun.connect({ hostname: '127.0.0.1', port, socket: { data() {} } })
      socket.end()
      break
    } catch {
      await Bun.sleep(50)
    }
  }
  return {
    url,
    async stop() {
      proc.kill()
      await proc.exited
    },
  }
}

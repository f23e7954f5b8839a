/**
 * The container files checked without a container engine (CI has none): the Dockerfile's stages, user,
 * volume, health check and build inputs; compose.yaml's services, profiles, wiring and probes; and that nginx and
 * Prometheus name the replicas compose defines. deploy/README.md says what was built and run by hand.
 */
import { describe, expect, test } from 'bun:test'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'yaml'

const root = join(import.meta.dir, '..', '..')
const read = (path: string) => readFileSync(join(root, path), 'utf8')

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile')
  const instructions = dockerfile
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((l) => l.trim() && !l.trimStart().startsWith('#'))
  const stages = instructions.filter((l) => l.startsWith('FROM '))

  test('two stages: the build compiles the binary, the runtime copies only it', () => {
    expect(stages).toHaveLength(2)
    expect(stages[0]).toMatch(/^FROM docker\.io\/oven\/bun:\$\{BUN_VERSION\} AS build$/)
    expect(dockerfile).toContain(`ARG BUN_VERSION=${read('scripts/setup.sh').match(/BUN_VERSION=(\S+)/)![1]}`)
    expect(instructions.some((l) => l.includes('bun install --frozen-lockfile'))).toBe(true)
    expect(instructions.some((l) => l.includes('bun run build'))).toBe(true)
    const runtimeCopies = instructions.slice(instructions.indexOf(stages[1]!)).filter((l) => l.startsWith('COPY'))
    expect(runtimeCopies).toEqual(['COPY --from=build /src/dist/gateway /usr/local/bin/gateway'])
  })

  test('the build stage copies every input `bun run build` reads', () => {
    const copied = instructions.filter((l) => l.startsWith('COPY ') && !l.includes('--from')).flatMap((l) => l.split(/\s+/).slice(1, -1))
    const build = JSON.parse(read('package.json')).scripts.build as string
    for (const entry of build.split(/\s+/).filter((w) => w.endsWith('.ts'))) expect(copied.some((c) => entry.startsWith(c.replace(/^\.\//, '')))).toBe(true)
    for (const file of ['package.json', 'bun.lock', 'bunfig.toml', 'tsconfig.json']) expect(copied).toContain(file)
    expect(copied).toContain('plugins') // src/ imports the plugin registry
    const ignore = read('.dockerignore')
    for (const kept of ['!src/**', '!plugins/**', '!bun.lock']) expect(ignore).toContain(kept)
  })

  test('runs as a non-root user with CA certificates, a /data volume and a health check', () => {
    const runtime = instructions.slice(instructions.indexOf(stages[1]!))
    expect(runtime.find((l) => l.startsWith('USER '))).toBe('USER 10001:10001')
    expect(runtime.some((l) => l.includes('ca-certificates'))).toBe(true)
    expect(runtime).toContain('VOLUME ["/data"]')
    expect(runtime.some((l) => l.includes('GATEWAY_DB_PATH=/data/gateway.db'))).toBe(true)
    expect(runtime.find((l) => l.startsWith('HEALTHCHECK'))).toContain('CMD ["/usr/local/bin/gateway", "healthcheck"]')
    expect(runtime.find((l) => l.startsWith('ENTRYPOINT'))).toBe('ENTRYPOINT ["/usr/local/bin/gateway"]')
  })
})

describe('compose.yaml', () => {
  const compose = parse(read('compose.yaml'), { merge: true }) as { services: Record<string, any> }
  const services = compose.services

  test('two gateway replicas on PostgreSQL and Redis behind a load balancer; collector and Prometheus optional', () => {
    expect(Object.keys(services).sort()).toEqual(['gateway-1', 'gateway-2', 'lb', 'otel-collector', 'postgres', 'prometheus', 'redis'])
    for (const name of ['gateway-1', 'gateway-2']) {
      const g = services[name]
      expect(g.build).toBe('.')
      expect(g.environment.DATABASE_URL).toMatch(/^postgres:\/\/gateway:.*@postgres:5432\/gateway$/)
      expect(g.environment.REDIS_URL).toBe('redis://redis:6379')
      expect(g.environment.GATEWAY_MASTER_KEY).toContain(':?') // compose refuses to start without one
      expect(g.depends_on.postgres.condition).toBe('service_healthy')
      expect(g.stop_grace_period).toBe('60s')
      expect(g.volumes[0]).toEndWith(':/data')
    }
    expect(services['gateway-1'].volumes[0]).not.toBe(services['gateway-2'].volumes[0])
    expect(services.prometheus.profiles).toEqual(['metrics'])
    expect(services['otel-collector'].profiles).toEqual(['tracing'])
    expect(services.postgres.healthcheck.test.join(' ')).toContain('pg_isready')
    for (const s of Object.values(services)) expect(s.image ?? '').toMatch(/^(ai-gateway:local|docker\.io\/[\w./-]+:[\w.-]+)$/)
  })

  test('nginx balances the replicas compose defines and keeps /metrics private; Prometheus scrapes them', () => {
    const nginx = read('deploy/nginx.conf')
    const upstreams = [...nginx.matchAll(/server (gateway-\d):8080/g)].map((m) => m[1])
    expect(upstreams).toEqual(['gateway-1', 'gateway-2'])
    expect(nginx).toContain('location = /metrics { return 404; }')
    expect(nginx).toContain('proxy_buffering off;')
    const prometheus = parse(read('deploy/prometheus.yml')) as any
    expect(prometheus.scrape_configs[0].static_configs[0].targets).toEqual(['gateway-1:8080', 'gateway-2:8080'])
    const mounts = Object.values(services)
      .flatMap((s: any) => (s.volumes ?? []) as string[])
      .filter((v) => v.startsWith('./'))
    for (const mount of mounts) expect(existsSync(join(root, mount.split(':')[0]!))).toBe(true)
  })

  test('the collector receives OTLP/HTTP where the replicas are told to send it', () => {
    const collector = parse(read('deploy/otel-collector.yaml')) as any
    expect(collector.receivers.otlp.protocols.http.endpoint).toBe('0.0.0.0:4318')
    expect(collector.service.pipelines.traces.receivers).toEqual(['otlp'])
    expect(read('compose.yaml')).toContain('OTEL_EXPORTER_OTLP_ENDPOINT=http://otel-collector:4318')
  })
})

/**
 * @module Process metrics under the names Prometheus exporters use (`process_*`), read at scrape time, plus the
 * event-loop lag. prom-client's default collectors are not used: on Bun its event-loop histogram reports
 * nonsense (`Nan`, a minimum of 9.2e9 s), so the lag is measured here as the lateness of a 500 ms timer.
 */
import { Counter, Gauge, type Registry } from './prom-client.ts'

const LAG_INTERVAL_MS = 500

/** Registers the gauges; returns the function that stops the lag timer. */
export function registerProcessMetrics(registry: Registry): () => void {
  const registers = [registry]
  new Gauge({
    name: 'process_resident_memory_bytes',
    help: 'Resident memory size in bytes.',
    registers,
    collect() {
      this.set(process.memoryUsage.rss())
    },
  })
  new Gauge({
    name: 'process_heap_bytes',
    help: 'JavaScript heap in use, in bytes.',
    registers,
    collect() {
      this.set(process.memoryUsage().heapUsed)
    },
  })
  new Gauge({ name: 'process_start_time_seconds', help: 'Start time of the process since the Unix epoch, in seconds.', registers }).set(
    Math.round(Date.now() / 1000 - process.uptime()),
  )
  const cpu = new Counter({
    name: 'process_cpu_seconds_total',
    help: 'User and system CPU time spent, in seconds.',
    registers,
    collect() {
      const { user, system } = process.cpuUsage()
      cpu.reset()
      cpu.inc((user + system) / 1e6)
    },
  })

  // The worst lateness since the last scrape, then the latest sample: a spike between scrapes is not lost.
  let worstSinceScrape = 0
  let latest = 0
  let expected = performance.now() + LAG_INTERVAL_MS
  const timer = setInterval(() => {
    const now = performance.now()
    latest = Math.max(0, now - expected) / 1000
    worstSinceScrape = Math.max(worstSinceScrape, latest)
    expected = now + LAG_INTERVAL_MS
  }, LAG_INTERVAL_MS)
  timer.unref?.()
  new Gauge({
    name: 'gateway_event_loop_lag_seconds',
    help: `How late a ${LAG_INTERVAL_MS} ms timer fired: the largest delay since the previous scrape.`,
    registers,
    collect() {
      this.set(Math.max(worstSinceScrape, latest))
      worstSinceScrape = 0
    },
  })
  return () => clearInterval(timer)
}

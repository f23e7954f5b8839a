/**
 * @module How the benchmark's own servers (mock upstream, bare proxy, OTLP sink) run once Bun.serve started them:
 * `listening <port>` on stdout, what the scripts wait for, and a clean stop on SIGTERM or SIGINT.
 */

/** Announces the server's port and stops the server and the process on SIGTERM or SIGINT. */
export function runUntilStopped(server: { port: number | undefined; stop(closeActiveConnections?: boolean): unknown }): void {
  console.log(`listening ${server.port}`)
  const stop = () => {
    server.stop(true)
    process.exit(0)
  }
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
}

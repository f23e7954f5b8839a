/**
 * @module `gateway healthcheck`: asks the gateway on this machine for /health and exits 0 when it answers 200,
 * 1 otherwise. For container HEALTHCHECKs in images that ship no curl (Dockerfile); reads PORT like the server.
 */
export async function healthcheck(port = Number(process.env.PORT || 8080)): Promise<never> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(2000) })
    process.exit(res.status === 200 ? 0 : 1)
  } catch (error) {
    process.stderr.write(`healthcheck: ${(error as Error).message}\n`)
    process.exit(1)
  }
}

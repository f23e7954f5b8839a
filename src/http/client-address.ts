/**
 * @module The address of the TCP peer, read from the connection only when asked (reading it costs a system call,
 * and most requests never need it). Behind a proxy it is the proxy's (docs/security.md, "What to put in front").
 */

/** What Elysia hands a route as `server`: Bun's server, or null outside one. */
export type PeerSource = { requestIP(request: Request): { address: string } | null } | null | undefined

export function clientAddressOf(server: PeerSource, request: Request): () => string {
  return () => server?.requestIP(request)?.address ?? ''
}

/**
 * @module The cache key: whose entry it is (the workflow's `scope`), the workflow version, the resolved target and
 * the request body as it goes upstream, canonicalised (keys sorted) and without the fields that only change the
 * delivery (the API's `deliveryFields`: chat's `stream`, `stream_options`), so a streamed and a plain request share one entry. Everything that can
 * change the answer is in it: the body after the rewriters, the target after resolution, the version whose
 * rewriters, guardrails and routing produced both (the gateway sends no client header upstream on this endpoint).
 */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null'
  const obj = value as Record<string, unknown>
  return `{${Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical(obj[k])}`)
    .join(',')}}`
}

export interface CacheKeyParts {
  endpoint: string
  /** Whose entries: `key:<principal id>`, `user_path:<path>` or `global`. */
  owner: string
  workflowVersionId: string
  /** The resolved target, `<provider>/<model>`. */
  selector: string
}

export function cacheKey(parts: CacheKeyParts, body: Record<string, unknown>, deliveryFields: readonly string[]): string {
  const material: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(body)) if (!deliveryFields.includes(k) && k !== 'model') material[k] = v
  const head = JSON.stringify([parts.endpoint, parts.owner, parts.workflowVersionId, parts.selector])
  return new Bun.CryptoHasher('sha256').update(`${head}\n${canonical(material)}`).digest('hex')
}

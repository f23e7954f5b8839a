/**
 * @module The cache key: the resolved target plus the request body as it goes upstream, canonicalised (keys
 * sorted) and without the fields that only change the delivery (`stream`, `stream_options`), so a streamed and
 * a plain request share one entry.
 */
const DELIVERY_ONLY = new Set(['stream', 'stream_options'])

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

export function cacheKey(endpoint: string, selector: string, body: Record<string, unknown>): string {
  const material: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(body)) if (!DELIVERY_ONLY.has(k) && k !== 'model') material[k] = v
  return new Bun.CryptoHasher('sha256').update(`${endpoint}\n${selector}\n${canonical(material)}`).digest('hex')
}

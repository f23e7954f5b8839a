/**
 * @module What tools/list, prompts/list, resources/list and resources/templates/list answer: the catalogue's lists
 * filtered by the caller's view, renamed for the endpoint (./names.ts), serialised once and kept until the
 * catalogue changes. Callers whose rules are the same share one entry (the view's signature), so a list of 500
 * tools across 10 servers is a map lookup and a string splice after the first time.
 */
import type { McpCatalog, ServerEntry } from './catalog.ts'
import { exposedName, exposedUri, type EndpointScope } from './names.ts'
import type { ToolView } from './visibility.ts'

export type ListKind = 'tools' | 'prompts' | 'resources' | 'resourceTemplates'

export interface Listing {
  /** The JSON of the result object, e.g. `{"tools":[…]}`. */
  json: string
  items: number
  /** Changes when the listing's content changes: a notification stream's event id. */
  fingerprint: string
}

const MAX_ENTRIES = 5000

export class McpListings {
  private readonly cache = new Map<string, Listing>()
  private cachedVersion = -1

  constructor(private readonly catalog: McpCatalog) {}

  list(kind: ListKind, scope: EndpointScope, view: ToolView): Listing {
    if (this.cachedVersion !== this.catalog.version) {
      this.cache.clear()
      this.cachedVersion = this.catalog.version
    }
    const key = `${kind}|${scope.kind === 'all' ? '' : scope.server}|${view.signature}`
    let listing = this.cache.get(key)
    if (!listing) {
      listing = this.build(kind, scope, view)
      if (this.cache.size >= MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value!)
      this.cache.set(key, listing)
    }
    return listing
  }

  /** The servers of the endpoint, in name order. */
  private servers(scope: EndpointScope): ServerEntry[] {
    if (scope.kind === 'server') {
      const entry = this.catalog.get(scope.server)
      return entry ? [entry] : []
    }
    return [...this.catalog.all()].sort((a, b) => (a.name < b.name ? -1 : 1))
  }

  private build(kind: ListKind, scope: EndpointScope, view: ToolView): Listing {
    const items: Record<string, unknown>[] = []
    for (const entry of this.servers(scope)) {
      if (kind === 'tools') {
        for (const [name, tool] of entry.tools) if (view.canSeeTool(entry.name, name)) items.push({ ...tool, name: exposedName(scope, entry.name, name) })
        continue
      }
      if (!view.canUseServer(entry.name, entry.toolNames)) continue
      if (kind === 'prompts') for (const [name, prompt] of entry.prompts) items.push({ ...prompt, name: exposedName(scope, entry.name, name) })
      else if (kind === 'resources') for (const [uri, r] of entry.resources) items.push({ ...r, uri: exposedUri(scope, entry.name, uri) })
      else {
        for (const t of entry.lists.resourceTemplates) {
          if (typeof t.uriTemplate === 'string') items.push({ ...t, uriTemplate: exposedUri(scope, entry.name, t.uriTemplate) })
        }
      }
    }
    const json = JSON.stringify({ [kind]: items })
    return { json, items: items.length, fingerprint: Bun.hash(json).toString(36) }
  }
}

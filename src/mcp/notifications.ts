/**
 * @module The GET stream of a session (server-to-client messages): the gateway sends `notifications/{tools,prompts,resources}/list_changed`
 * when what the caller may see changes (a server added a tool, restarted with other tools, a rule changed).
 * Each event's id is the fingerprint of the lists it announces, so resuming needs no stored events and works on any
 * replica: a client that reconnects with `Last-Event-ID` is told at once if its lists changed since. A comment line
 * every `keepaliveMs` keeps proxies from closing a quiet stream. At most `maxStreams` are open per replica; past
 * that the oldest is closed (its client reconnects).
 */
import type { ListKind, McpListings } from './listings.ts'
import type { EndpointScope } from './names.ts'
import type { ToolView } from './visibility.ts'
import { notificationJson } from './jsonrpc.ts'

interface OpenStream {
  scope: EndpointScope
  view: ToolView
  controller: ReadableStreamDefaultController<Uint8Array>
  lastFingerprint: string
  keepalive: ReturnType<typeof setInterval>
}

const KINDS: readonly [ListKind, string][] = [
  ['tools', 'notifications/tools/list_changed'],
  ['prompts', 'notifications/prompts/list_changed'],
  ['resources', 'notifications/resources/list_changed'],
]

const encoder = new TextEncoder()

export class NotificationStreams {
  private readonly streams = new Set<OpenStream>()

  constructor(
    private readonly listings: McpListings,
    private readonly keepaliveMs: number,
    private readonly maxStreams: number,
  ) {}

  get size(): number {
    return this.streams.size
  }

  /** A fingerprint of everything a stream announces: the event id. */
  private fingerprint(scope: EndpointScope, view: ToolView): string {
    return KINDS.map(([kind]) => this.listings.list(kind, scope, view).fingerprint).join('.')
  }

  open(scope: EndpointScope, view: ToolView, lastEventId: string | null, signal: AbortSignal): ReadableStream<Uint8Array> {
    if (this.streams.size >= this.maxStreams) this.close(this.streams.values().next().value!)
    let stream: OpenStream
    return new ReadableStream<Uint8Array>({
      start: (controller) => {
        const current = this.fingerprint(scope, view)
        stream = {
          scope,
          view,
          controller,
          lastFingerprint: lastEventId ?? current,
          keepalive: setInterval(() => this.write(stream, ': keepalive\n\n'), this.keepaliveMs),
        }
        this.streams.add(stream)
        // The priming event (an id and no data) lets the client resume from here; a resumed stream whose lists
        // changed meanwhile is told now.
        this.write(stream, `id: ${current}\nretry: 2000\ndata: \n\n`)
        if (lastEventId !== null && lastEventId !== current) this.announce(stream, lastEventId.split('.'), current)
        signal.addEventListener('abort', () => this.close(stream), { once: true })
      },
      cancel: () => this.close(stream),
    })
  }

  /** The catalogue or the rules changed: tell each stream whose lists changed. */
  changed(): void {
    for (const stream of this.streams) {
      const current = this.fingerprint(stream.scope, stream.view)
      if (current !== stream.lastFingerprint) this.announce(stream, stream.lastFingerprint.split('.'), current)
    }
  }

  closeAll(): void {
    for (const stream of [...this.streams]) this.close(stream)
  }

  private announce(stream: OpenStream, before: string[], current: string): void {
    const now = current.split('.')
    let text = ''
    KINDS.forEach(([, method], i) => {
      if (before[i] !== now[i]) text += `id: ${current}\ndata: ${notificationJson(method)}\n\n`
    })
    stream.lastFingerprint = current
    if (text) this.write(stream, text)
  }

  private write(stream: OpenStream, text: string): void {
    try {
      stream.controller.enqueue(encoder.encode(text))
    } catch {
      this.close(stream)
    }
  }

  private close(stream: OpenStream | undefined): void {
    if (!stream || !this.streams.delete(stream)) return
    clearInterval(stream.keepalive)
    try {
      stream.controller.close()
    } catch {
      // already closed by the client
    }
  }
}

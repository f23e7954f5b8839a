/**
 * @module The main thread's side of the tokenizer thread (count-thread-worker.ts). The thread starts on the first
 * count, so an idle gateway never loads the tables (about 5 MiB, and the thread's own engine about 4 MiB), and it is unreferenced whenever no count is
 * waiting, so it never keeps a process alive. One thread per process (each of GATEWAY_WORKERS has its own).
 *
 * A count that the thread cannot answer in time falls back to {@link cheapEstimate}: while the tables are still
 * loading, a count waits at most {@link LOAD_WAIT_MS} (starting the thread and loading take 0.1–0.2 s of one
 * core, more on an overloaded machine: the wait bounds the first request's added latency, once per process, and
 * covers the load on a machine with a core to spare); a thread that fails to start or dies answers its waiting
 * counts with the estimate, and the next count starts a new thread after {@link RESTART_AFTER_MS}. Once loaded, answers come in well under a millisecond plus
 * the bounded count itself (encode.ts), so nothing waits on a timer then.
 */
import type { CountThreadReply, CountThreadRequest } from './count-thread-worker.ts'

/** Longest a count waits for the tables to load before it answers the cheap estimate. */
export const LOAD_WAIT_MS = 1_000
/** After the thread failed, counts are cheap estimates for this long before a new thread is tried. */
const RESTART_AFTER_MS = 10_000

/**
 * Where the thread's script is. In a source checkout it sits beside this file; in the compiled binary every
 * module shares the entry's URL, so the entry (src/main.ts) sets `new URL('./tokens/count-thread-worker.ts', …)`.
 */
let threadUrl = new URL('./count-thread-worker.ts', import.meta.url).href

export function setCountThreadUrl(url: string): void {
  threadUrl = url
  failedAt = -Infinity
}

/** o200k averages about four characters of text per token: the answer when the tokenizer cannot be asked. */
export function cheapEstimate(texts: readonly string[]): number {
  let chars = 0
  for (const t of texts) chars += t.length
  return Math.ceil(chars / 4)
}

interface Waiter {
  texts: readonly string[]
  resolve: (tokens: number) => void
  timer?: ReturnType<typeof setTimeout>
}

/** Bun's Worker, which can be unreferenced like a timer. */
type BunWorker = Worker & { ref(): void; unref(): void }

interface Thread {
  worker: BunWorker
  pending: Map<number, Waiter>
  loaded: boolean
  /** Counts asked for while the thread loads; posted once it has said `loaded`. */
  queued: CountThreadRequest[]
  onLoaded: Array<(ms: number | undefined) => void>
}

let thread: Thread | undefined
let failedAt = -Infinity
let nextId = 0

function settle(t: Thread, id: number, tokens: number | undefined): void {
  const waiter = t.pending.get(id)
  if (!waiter) return
  t.pending.delete(id)
  clearTimeout(waiter.timer)
  waiter.resolve(tokens ?? cheapEstimate(waiter.texts))
  if (t.pending.size === 0 && t.onLoaded.length === 0) t.worker.unref()
}

function fail(t: Thread): void {
  if (thread !== t) return
  thread = undefined
  failedAt = performance.now()
  t.worker.terminate()
  for (const id of [...t.pending.keys()]) settle(t, id, undefined)
  for (const done of t.onLoaded.splice(0)) done(undefined)
}

function start(): Thread | undefined {
  if (thread) return thread
  if (performance.now() - failedAt < RESTART_AFTER_MS) return undefined
  let worker: BunWorker
  try {
    worker = new Worker(threadUrl) as BunWorker
  } catch {
    failedAt = performance.now()
    return undefined
  }
  const t: Thread = { worker, pending: new Map(), loaded: false, queued: [], onLoaded: [] }
  thread = t
  worker.onmessage = (event: MessageEvent<CountThreadReply>) => {
    const reply = event.data
    if (reply.kind === 'loaded') {
      t.loaded = true
      for (const request of t.queued.splice(0)) if (t.pending.has(request.id)) worker.postMessage(request)
      for (const done of t.onLoaded.splice(0)) done(reply.ms)
      if (t.pending.size === 0) worker.unref()
    } else settle(t, reply.id, reply.kind === 'counted' ? reply.tokens : undefined)
  }
  worker.onerror = () => fail(t)
  worker.addEventListener('close', () => fail(t))
  return t
}

/** Tokens of the texts together, counted on the tokenizer thread (see the module comment for the fallback). */
export function countOnThread(texts: readonly string[]): Promise<number> {
  const t = start()
  if (!t) return Promise.resolve(cheapEstimate(texts))
  return new Promise((resolve) => {
    const id = ++nextId
    const waiter: Waiter = { texts, resolve }
    if (!t.loaded) {
      waiter.timer = setTimeout(() => settle(t, id, undefined), LOAD_WAIT_MS)
      waiter.timer.unref?.()
    }
    t.pending.set(id, waiter)
    t.worker.ref()
    const request: CountThreadRequest = { kind: 'count', id, texts: texts as string[] }
    if (t.loaded) t.worker.postMessage(request)
    else t.queued.push(request)
  })
}

/** Starts the thread and resolves once its tables are loaded, with the milliseconds loading took (undefined: failed). */
export function loadCountThread(): Promise<number | undefined> {
  const t = start()
  if (!t) return Promise.resolve(undefined)
  if (t.loaded) return Promise.resolve(0)
  t.worker.ref()
  return new Promise((resolve) => t.onLoaded.push(resolve))
}

/** Ends the thread (on shutdown; counts after this start a new one). */
export function stopCountThread(): void {
  const t = thread
  if (!t) return
  thread = undefined
  t.worker.terminate()
  for (const id of [...t.pending.keys()]) settle(t, id, undefined)
  for (const done of t.onLoaded.splice(0)) done(undefined)
}

/**
 * @module The tokenizer thread: loads the o200k tables as it starts, says so (`loaded`), then answers counts one
 * at a time with the bounded count of encode.ts. The main thread posts counts only after `loaded`: in the compiled
 * binary, messages posted to a thread that is still starting were lost. Built into the binary as its own entrypoint (see the
 * `build` script in package.json).
 */
import { countTextsTokensNow } from './encode.ts'
import { loadTokenizer } from './tokenizer.ts'

export type CountThreadRequest = { kind: 'count'; id: number; texts: string[] }
export type CountThreadReply = { kind: 'loaded'; ms: number } | { kind: 'counted'; id: number; tokens: number } | { kind: 'failed'; id: number; error: string }

declare const self: Worker

self.onmessage = (event: MessageEvent<CountThreadRequest>) => {
  const message = event.data
  try {
    self.postMessage({ kind: 'counted', id: message.id, tokens: countTextsTokensNow(message.texts) } satisfies CountThreadReply)
  } catch (error) {
    self.postMessage({ kind: 'failed', id: message.id, error: (error as Error).message } satisfies CountThreadReply)
  }
}

const started = performance.now()
loadTokenizer()
self.postMessage({ kind: 'loaded', ms: performance.now() - started } satisfies CountThreadReply)

/**
 * @module Reads a raw SSE body into [event name | undefined, parsed data] pairs (`[DONE]` kept as a string) and
 * skips comment frames, for tests that check framing byte by byte; and catches the error an SDK stream ends with.
 */
export function sseEvents(raw: string): [string | undefined, any][] {
  return raw
    .split('\n\n')
    .filter((block) => block.trim() && !block.startsWith(':'))
    .map((block) => {
      const lines = block.split('\n')
      const name = lines.find((l) => l.startsWith('event: '))?.slice(7)
      const data = lines.find((l) => l.startsWith('data: '))!.slice(6)
      return [name, data === '[DONE]' ? '[DONE]' : JSON.parse(data)]
    })
}

/** Reads a client stream to its end and returns what it threw (undefined when it ended cleanly). */
export async function streamError(stream: AsyncIterable<unknown>): Promise<any> {
  try {
    for await (const _ of stream) {
      // only the end matters
    }
  } catch (e) {
    return e
  }
  return undefined
}

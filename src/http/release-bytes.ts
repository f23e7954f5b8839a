/**
 * @module Frees a chunk's memory as soon as the gateway is done with it, rather than when the garbage collector next
 * runs. A stream passed through (an upload, a speech answer) moves hundreds of MiB in chunks that Bun allocates
 * outside the JavaScript heap; the collector, paced by the heap, lets tens of MiB of spent chunks pile up (issue 27:
 * a 200 MiB upload grew the gateway by ~60 MiB). Detaching a chunk's ArrayBuffer (`transfer(0)`) frees its bytes
 * at once. Only a chunk that owns its whole buffer is detached: a view into a shared buffer (Node's Buffer pool, a
 * larger read) is left to the collector.
 */

export function releaseBytes(chunk: Uint8Array): void {
  const buffer = chunk.buffer
  if (!(buffer instanceof ArrayBuffer) || buffer.detached || chunk.byteOffset !== 0 || chunk.byteLength !== buffer.byteLength) return
  buffer.transfer(0)
}

/** Chunks handed on whose bytes the consumer has taken by the time it asks for more. */
export class SpentChunks {
  private chunks: Uint8Array[] = []

  add(chunk: Uint8Array): void {
    this.chunks.push(chunk)
  }

  release(): void {
    for (const chunk of this.chunks) releaseBytes(chunk)
    this.chunks = []
  }
}

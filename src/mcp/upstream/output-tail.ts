/**
 * @module A stdio server's stderr, bounded: the last few KiB are kept for the dashboard, and complete lines are
 * handed out for the log at most `linesPerMinute` a minute (a chatty or looping server cannot flood the log);
 * the lines dropped are counted and reported with the next line that passes.
 */

export class OutputTail {
  private tail = ''
  private partial = ''
  private windowStart = 0
  private inWindow = 0
  private dropped = 0

  constructor(
    private readonly maxChars = 8 * 1024,
    private readonly linesPerMinute = 30,
    private readonly maxLineChars = 2000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Adds output; returns the lines to log now. */
  append(chunk: Buffer | string): string[] {
    const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8')
    this.tail = (this.tail + text).slice(-this.maxChars)
    const parts = (this.partial + text).split('\n')
    this.partial = (parts.pop() ?? '').slice(-this.maxLineChars)
    const out: string[] = []
    for (const raw of parts) {
      const line = raw.replace(/\r$/, '')
      if (!line) continue
      const now = this.now()
      if (now - this.windowStart >= 60_000) {
        this.windowStart = now
        this.inWindow = 0
      }
      if (this.inWindow >= this.linesPerMinute) {
        this.dropped++
        continue
      }
      this.inWindow++
      const cut = line.length > this.maxLineChars ? `${line.slice(0, this.maxLineChars)}…` : line
      out.push(this.dropped > 0 ? `${cut} (${this.dropped} earlier lines not logged)` : cut)
      this.dropped = 0
    }
    return out
  }

  text(): string {
    return this.tail
  }
}

/**
 * @module The lease of a single process: no other replica can hold it, so a job runs unless the same job of
 * this process is still running.
 */
import type { Lease } from '../types.ts'

export class MemoryLease implements Lease {
  private readonly held = new Set<string>()

  async runExclusive<T>(name: string, job: () => Promise<T>): Promise<T | undefined> {
    if (this.held.has(name)) return undefined
    this.held.add(name)
    try {
      return await job()
    } finally {
      this.held.delete(name)
    }
  }
}

/**
 * @module The lease over PostgreSQL advisory locks: a job runs on the replica that gets the lock for its name and
 * is skipped (not queued) on the others. The lock lives on one reserved connection for the job's duration, so a
 * replica that dies mid-job releases it with its connection.
 */
import type { SQL } from 'bun'
import type { Lease } from '../types.ts'

export class PostgresLease implements Lease {
  constructor(private readonly sql: SQL) {}

  /** Undefined (not run) also when PostgreSQL cannot be reached: then no replica can know it holds the lease. */
  async runExclusive<T>(name: string, job: () => Promise<T>): Promise<T | undefined> {
    let connection: Awaited<ReturnType<SQL['reserve']>>
    try {
      connection = await this.sql.reserve()
    } catch {
      return undefined
    }
    try {
      const got = await connection`SELECT pg_try_advisory_lock(hashtext(${`gateway:${name}`})) AS got`.then(
        (rows) => rows[0]?.got === true,
        () => false,
      )
      if (!got) return undefined
      try {
        return await job()
      } finally {
        await connection`SELECT pg_advisory_unlock(hashtext(${`gateway:${name}`}))`.catch(() => {})
      }
    } finally {
      connection.release()
    }
  }
}

/**
 * @module A small client for /admin/audit in end-to-end tests, with polling helpers: entries are written off the
 * hot path, so a test waits until the writer stored them instead of sleeping a fixed time.
 */
import type { AuditLogEntry, AuditLogPage } from '../../src/audit/entry.ts'
import type { AuditWriterStats } from '../../src/stores/write-path/audit-writer.ts'

export interface AuditAdmin {
  get(path: string, key?: string): Promise<{ status: number; body: any }>
  list(params?: string | Record<string, string>): Promise<AuditLogPage>
  detail(id: string): Promise<AuditLogEntry>
  writerStats(): Promise<AuditWriterStats>
  /** The single entry whose request_id is `requestId` (a UUID), once stored; fails when there are several. */
  entryFor(requestId: string): Promise<AuditLogEntry>
  /** Polls until `check` passes (or throws after the timeout). */
  eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, timeoutMs?: number): Promise<T>
}

export function auditAdmin(baseUrl: string, masterKey: string): AuditAdmin {
  const get = async (path: string, key = masterKey) => {
    const res = await fetch(`${baseUrl}/admin${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {} })
    return { status: res.status, body: (await res.json()) as any }
  }
  const ok = async (path: string) => {
    const res = await get(path)
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`)
    return res.body
  }
  async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, timeoutMs = 5000): Promise<T> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const value = await read()
      if (check(value)) return value
      if (Date.now() > deadline) throw new Error(`condition not met in ${timeoutMs} ms; last value: ${JSON.stringify(value).slice(0, 500)}`)
      await Bun.sleep(20)
    }
  }
  const admin: AuditAdmin = {
    get,
    list: (params = '') => ok(`/audit/log?${new URLSearchParams(params)}`),
    detail: (id) => ok(`/audit/detail?log_id=${encodeURIComponent(id)}`),
    writerStats: () => ok('/audit/writer-stats'),
    async entryFor(requestId) {
      const page = await eventually(
        () => admin.list({ search: requestId }),
        (p) => p.total > 0,
      )
      if (page.total !== 1) throw new Error(`expected one entry for ${requestId}, found ${page.total}`)
      return admin.detail(page.entries[0]!.id)
    },
    eventually,
  }
  return admin
}

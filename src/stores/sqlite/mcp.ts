/**
 * @module MCP servers, visibility rules and upstream OAuth credentials in SQLite (src/mcp/). Secret values arrive
 * sealed; this store only keeps rows.
 */
import type { Database } from 'bun:sqlite'
import { and, asc, eq, gte, lt, ne, or, type SQL } from 'drizzle-orm'
import type { McpStore, StoredMcpCredential } from '../types.ts'
import { orm } from './orm.ts'
import { mcpCredentials, mcpServers, mcpVisibilityRules } from './schema.ts'

type CredentialRow = typeof mcpCredentials.$inferSelect

const credentialOf = (row: CredentialRow): StoredMcpCredential => ({ ...row, ownerKind: row.ownerKind as StoredMcpCredential['ownerKind'] })

export function sqliteMcpStore(db: Database): McpStore {
  const o = orm(db)
  return {
    async servers() {
      return o.select().from(mcpServers).orderBy(asc(mcpServers.name)).all()
    },
    async putServer(server) {
      o.insert(mcpServers)
        .values(server)
        .onConflictDoUpdate({ target: mcpServers.name, set: { sealedConfig: server.sealedConfig, updatedAt: server.updatedAt } })
        .run()
    },
    async deleteServer(name) {
      return o.delete(mcpServers).where(eq(mcpServers.name, name)).returning({ name: mcpServers.name }).all().length > 0
    },
    async rules() {
      return o
        .select()
        .from(mcpVisibilityRules)
        .orderBy(asc(mcpVisibilityRules.createdAt), asc(mcpVisibilityRules.id))
        .all()
        .map((r) => ({ id: r.id, rule: JSON.parse(r.rule), createdAt: r.createdAt }))
    },
    async putRule(rule) {
      const row = { id: rule.id, rule: JSON.stringify(rule.rule), createdAt: rule.createdAt }
      o.insert(mcpVisibilityRules).values(row).onConflictDoUpdate({ target: mcpVisibilityRules.id, set: row }).run()
    },
    async deleteRule(id) {
      return o.delete(mcpVisibilityRules).where(eq(mcpVisibilityRules.id, id)).returning({ id: mcpVisibilityRules.id }).all().length > 0
    },
    async credential(server, ownerKind, ownerId) {
      const row = o
        .select()
        .from(mcpCredentials)
        .where(and(eq(mcpCredentials.server, server), eq(mcpCredentials.ownerKind, ownerKind), eq(mcpCredentials.ownerId, ownerId)))
        .get()
      return row ? credentialOf(row) : undefined
    },
    async credentialById(id) {
      const row = o.select().from(mcpCredentials).where(eq(mcpCredentials.id, id)).get()
      return row ? credentialOf(row) : undefined
    },
    async putCredential(c) {
      o.insert(mcpCredentials)
        .values(c)
        .onConflictDoUpdate({
          target: [mcpCredentials.server, mcpCredentials.ownerKind, mcpCredentials.ownerId],
          set: { sealed: c.sealed, scope: c.scope, expiresAt: c.expiresAt, userPath: c.userPath, updatedAt: c.updatedAt },
        })
        .run()
    },
    async credentials(query) {
      const where: SQL[] = []
      if (query.server) where.push(eq(mcpCredentials.server, query.server))
      if (!query.includeClients) where.push(ne(mcpCredentials.ownerKind, 'client'))
      if (query.userPath && query.userPath !== '/') {
        // The subtree as a range ('/a/' ≤ x < '/a0': '0' follows '/' in byte order).
        where.push(or(eq(mcpCredentials.userPath, query.userPath), and(gte(mcpCredentials.userPath, `${query.userPath}/`), lt(mcpCredentials.userPath, `${query.userPath}0`)))!)
      }
      return o
        .select()
        .from(mcpCredentials)
        .where(and(...where))
        .orderBy(asc(mcpCredentials.server), asc(mcpCredentials.createdAt))
        .limit(query.limit)
        .all()
        .map(credentialOf)
    },
    async deleteCredential(id) {
      const row = o.delete(mcpCredentials).where(eq(mcpCredentials.id, id)).returning().get()
      return row ? credentialOf(row) : undefined
    },
  }
}

/**
 * @module MCP servers, visibility rules and upstream OAuth credentials in PostgreSQL (src/mcp/). Secret values
 * arrive sealed; this store only keeps rows.
 */
import { and, asc, eq, gte, lt, ne, or, type SQL } from 'drizzle-orm'
import type { McpStore, StoredMcpCredential } from '../types.ts'
import type { PgDb } from './client.ts'
import { mcpCredentials, mcpServers, mcpVisibilityRules } from './schema.ts'

type CredentialRow = typeof mcpCredentials.$inferSelect

const credentialOf = (row: CredentialRow): StoredMcpCredential => ({ ...row, ownerKind: row.ownerKind as StoredMcpCredential['ownerKind'] })

export function postgresMcpStore(db: PgDb): McpStore {
  return {
    async servers() {
      return db.select().from(mcpServers).orderBy(asc(mcpServers.name))
    },
    async putServer(server) {
      await db
        .insert(mcpServers)
        .values(server)
        .onConflictDoUpdate({ target: mcpServers.name, set: { sealedConfig: server.sealedConfig, updatedAt: server.updatedAt } })
    },
    async deleteServer(name) {
      return (await db.delete(mcpServers).where(eq(mcpServers.name, name)).returning({ name: mcpServers.name })).length > 0
    },
    async rules() {
      return (await db.select().from(mcpVisibilityRules).orderBy(asc(mcpVisibilityRules.createdAt), asc(mcpVisibilityRules.id))).map((r) => ({
        id: r.id,
        rule: r.rule,
        createdAt: r.createdAt,
      }))
    },
    async putRule(rule) {
      const row = { id: rule.id, rule: rule.rule, createdAt: rule.createdAt }
      await db.insert(mcpVisibilityRules).values(row).onConflictDoUpdate({ target: mcpVisibilityRules.id, set: row })
    },
    async deleteRule(id) {
      return (await db.delete(mcpVisibilityRules).where(eq(mcpVisibilityRules.id, id)).returning({ id: mcpVisibilityRules.id })).length > 0
    },
    async credential(server, ownerKind, ownerId) {
      const [row] = await db
        .select()
        .from(mcpCredentials)
        .where(and(eq(mcpCredentials.server, server), eq(mcpCredentials.ownerKind, ownerKind), eq(mcpCredentials.ownerId, ownerId)))
      return row ? credentialOf(row) : undefined
    },
    async credentialById(id) {
      const [row] = await db.select().from(mcpCredentials).where(eq(mcpCredentials.id, id))
      return row ? credentialOf(row) : undefined
    },
    async putCredential(c) {
      await db
        .insert(mcpCredentials)
        .values(c)
        .onConflictDoUpdate({
          target: [mcpCredentials.server, mcpCredentials.ownerKind, mcpCredentials.ownerId],
          set: { sealed: c.sealed, scope: c.scope, expiresAt: c.expiresAt, userPath: c.userPath, updatedAt: c.updatedAt },
        })
    },
    async credentials(query) {
      const where: SQL[] = []
      if (query.server) where.push(eq(mcpCredentials.server, query.server))
      if (!query.includeClients) where.push(ne(mcpCredentials.ownerKind, 'client'))
      if (query.userPath && query.userPath !== '/') {
        // The subtree as a range ('/a/' ≤ x < '/a0'), as the audit queries do (the column's collation is bytewise there).
        where.push(or(eq(mcpCredentials.userPath, query.userPath), and(gte(mcpCredentials.userPath, `${query.userPath}/`), lt(mcpCredentials.userPath, `${query.userPath}0`)))!)
      }
      return (
        await db
          .select()
          .from(mcpCredentials)
          .where(and(...where))
          .orderBy(asc(mcpCredentials.server), asc(mcpCredentials.createdAt))
          .limit(query.limit)
      ).map(credentialOf)
    },
    async deleteCredential(id) {
      const [row] = await db.delete(mcpCredentials).where(eq(mcpCredentials.id, id)).returning()
      return row ? credentialOf(row) : undefined
    },
  }
}

/**
 * @module Managed API keys in the embedded SQLite store. Only the SHA-256 of a secret and a redacted form are
 * written; the secret itself never reaches this file.
 */
import type { Database } from 'bun:sqlite'
import type { ApiKeyChanges, ApiKeyListQuery, ApiKeyPage, ApiKeyRecord, KeyStore } from '../types.ts'
import type { Migration } from './client.ts'

export const apiKeysMigration: Migration = {
  id: '0002_api_keys',
  sql: `
    CREATE TABLE api_keys (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      description TEXT NOT NULL DEFAULT '',
      key_hash TEXT NOT NULL UNIQUE,
      redacted_key TEXT NOT NULL,
      user_path TEXT,
      allowed_models TEXT,
      dashboard_enabled INTEGER NOT NULL DEFAULT 0,
      expires_at TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      revoked_at TEXT,
      created_by TEXT NOT NULL
    );
    CREATE INDEX api_keys_created_at ON api_keys (created_at);
  `,
}

interface Row {
  id: string
  name: string
  description: string
  key_hash: string
  redacted_key: string
  user_path: string | null
  /** JSON array, or NULL for every model. */
  allowed_models: string | null
  dashboard_enabled: number
  expires_at: string | null
  created_at: string
  updated_at: string
  revoked_at: string | null
  created_by: string
}

const COLUMNS = 'id, name, description, key_hash, redacted_key, user_path, allowed_models, dashboard_enabled, expires_at, created_at, updated_at, revoked_at, created_by'

function fromRow(row: Row): ApiKeyRecord {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    keyHash: row.key_hash,
    redactedKey: row.redacted_key,
    userPath: row.user_path,
    allowedModels: row.allowed_models === null ? null : (JSON.parse(row.allowed_models) as string[]),
    dashboardEnabled: row.dashboard_enabled === 1,
    expiresAt: row.expires_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    revokedAt: row.revoked_at,
    createdBy: row.created_by,
  }
}

const modelsColumn = (models: readonly string[] | null) => (models === null ? null : JSON.stringify(models))

/** `%` and `_` in a search are literal characters, not wildcards. */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`)

export class SqliteKeyStore implements KeyStore {
  constructor(private readonly db: Database) {}

  async loadAll(): Promise<ApiKeyRecord[]> {
    return this.db.query<Row, []>(`SELECT ${COLUMNS} FROM api_keys`).all().map(fromRow)
  }

  async list(query: ApiKeyListQuery): Promise<ApiKeyPage> {
    const where: string[] = []
    const params: Record<string, string | number> = {}
    if (!query.includeRevoked) where.push('revoked_at IS NULL')
    if (query.search) {
      where.push(`(name LIKE $search ESCAPE '\\' OR description LIKE $search ESCAPE '\\')`)
      params.search = `%${likeLiteral(query.search)}%`
    }
    if (query.userPath) {
      if (query.userPath === '/') where.push('user_path IS NOT NULL')
      else {
        where.push(`(user_path = $userPath OR user_path LIKE $userPathBelow ESCAPE '\\')`)
        params.userPath = query.userPath
        params.userPathBelow = `${likeLiteral(query.userPath)}/%`
      }
    }
    const filter = where.length ? `WHERE ${where.join(' AND ')}` : ''
    const total = this.db.query<{ n: number }, typeof params>(`SELECT COUNT(*) AS n FROM api_keys ${filter}`).get(params)?.n ?? 0
    const rows = this.db
      .query<Row, typeof params>(`SELECT ${COLUMNS} FROM api_keys ${filter} ORDER BY created_at DESC, id LIMIT $limit OFFSET $offset`)
      .all({ ...params, limit: query.limit, offset: query.offset })
    return { keys: rows.map(fromRow), total }
  }

  async get(id: string): Promise<ApiKeyRecord | undefined> {
    const row = this.db.query<Row, { id: string }>(`SELECT ${COLUMNS} FROM api_keys WHERE id = $id`).get({ id })
    return row ? fromRow(row) : undefined
  }

  async insert(r: ApiKeyRecord): Promise<void> {
    this.db
      .query(
        `INSERT INTO api_keys (${COLUMNS}) VALUES ($id, $name, $description, $keyHash, $redactedKey, $userPath, $allowedModels, $dashboardEnabled, $expiresAt, $createdAt, $updatedAt, $revokedAt, $createdBy)`,
      )
      .run({
        id: r.id,
        name: r.name,
        description: r.description,
        keyHash: r.keyHash,
        redactedKey: r.redactedKey,
        userPath: r.userPath,
        allowedModels: modelsColumn(r.allowedModels),
        dashboardEnabled: r.dashboardEnabled ? 1 : 0,
        expiresAt: r.expiresAt,
        createdAt: r.createdAt,
        updatedAt: r.updatedAt,
        revokedAt: r.revokedAt,
        createdBy: r.createdBy,
      })
  }

  async update(id: string, changes: ApiKeyChanges, updatedAt: string): Promise<ApiKeyRecord | undefined> {
    const sets = ['updated_at = $updatedAt']
    const params: Record<string, string | number | null> = { id, updatedAt }
    const set = (column: string, value: string | number | null) => {
      sets.push(`${column} = $${column}`)
      params[column] = value
    }
    if (changes.name !== undefined) set('name', changes.name)
    if (changes.description !== undefined) set('description', changes.description)
    if (changes.userPath !== undefined) set('user_path', changes.userPath)
    if (changes.allowedModels !== undefined) set('allowed_models', modelsColumn(changes.allowedModels))
    if (changes.dashboardEnabled !== undefined) set('dashboard_enabled', changes.dashboardEnabled ? 1 : 0)
    if (changes.expiresAt !== undefined) set('expires_at', changes.expiresAt)
    const row = this.db
      .query<Row, typeof params>(`UPDATE api_keys SET ${sets.join(', ')} WHERE id = $id AND revoked_at IS NULL RETURNING ${COLUMNS}`)
      .get(params)
    return row ? fromRow(row) : undefined
  }

  async revoke(id: string, revokedAt: string): Promise<{ record: ApiKeyRecord; changed: boolean } | undefined> {
    const revoke = this.db.transaction(() => {
      const { changes } = this.db
        .query('UPDATE api_keys SET revoked_at = $revokedAt, updated_at = $revokedAt WHERE id = $id AND revoked_at IS NULL')
        .run({ id, revokedAt })
      const row = this.db.query<Row, { id: string }>(`SELECT ${COLUMNS} FROM api_keys WHERE id = $id`).get({ id })
      return row ? { record: fromRow(row), changed: changes > 0 } : undefined
    })
    return revoke.immediate()
  }
}

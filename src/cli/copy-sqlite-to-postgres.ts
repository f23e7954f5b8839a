/**
 * @module The `copy-sqlite-to-postgres` command of the gateway binary: flags, a progress bar on stderr, a summary.
 *
 *     gateway copy-sqlite-to-postgres [--from <gateway.db>] [--to <postgres://…>] [--restart]
 *
 * `--from` defaults to GATEWAY_DB_PATH (database.path), `--to` to DATABASE_URL (database.url).
 */
import type { GatewayConfig } from '../config/schema.ts'
import type { CopyProgress } from '../stores/copy-sqlite-to-postgres.ts'

export const COPY_COMMAND = 'copy-sqlite-to-postgres'

const USAGE = `usage: gateway ${COPY_COMMAND} [--from <sqlite file>] [--to <postgres url>] [--restart]
  --from     the SQLite database to copy (default: GATEWAY_DB_PATH, ./data/gateway.db)
  --to       the PostgreSQL database to copy into (default: DATABASE_URL)
  --restart  ignore the position an interrupted run recorded (nothing is copied twice either way)`

export function parseCopyArgs(args: readonly string[], config: GatewayConfig): { from: string; to: string; restart: boolean } | string {
  let from = config.database.path
  let to = config.database.url
  let restart = false
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined]
    const value = () => inline ?? args[++i]
    if (flag === '--from') from = value() ?? ''
    else if (flag === '--to') to = value()
    else if (flag === '--restart') restart = true
    else if (flag === '--help' || flag === '-h') return USAGE
    else return `unknown argument '${arg}'\n${USAGE}`
  }
  if (!from || from === ':memory:') return `--from: a SQLite file is needed\n${USAGE}`
  if (!to || !/^postgres(ql)?:\/\//.test(to)) return `--to: a postgres:// URL is needed (or set DATABASE_URL)\n${USAGE}`
  return { from, to, restart }
}

/** One line, redrawn in place on a terminal; elsewhere a line per 10 %. */
export function progressBar(write: (text: string) => void, isTerminal: boolean) {
  let lastTenth = -1
  const started = Date.now()
  return (p: CopyProgress) => {
    const done = p.audit.copied + p.usage.copied
    const total = p.audit.total + p.usage.total
    const fraction = total === 0 ? 1 : done / total
    const width = 30
    const filled = Math.round(fraction * width)
    const rate = done / Math.max(0.001, (Date.now() - started) / 1000)
    const line = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(fraction * 100).toFixed(1).padStart(5)}%  ${p.phase.padEnd(11)} audit ${p.audit.copied}/${p.audit.total}  usage ${p.usage.copied}/${p.usage.total}  ${Math.round(rate)}/s`
    if (isTerminal) write(`\r${line}${p.phase === 'done' ? '\n' : ''}`)
    else {
      const tenth = Math.floor(fraction * 10)
      if (tenth !== lastTenth || p.phase === 'done') write(`${line}\n`)
      lastTenth = tenth
    }
  }
}

/** Runs the command; resolves to the process exit code. */
export async function runCopyCommand(args: readonly string[], config: GatewayConfig): Promise<number> {
  const parsed = parseCopyArgs(args, config)
  if (typeof parsed === 'string') {
    process.stderr.write(`${parsed}\n`)
    return parsed.startsWith('usage:') ? 0 : 2
  }
  const stop = new AbortController()
  process.once('SIGINT', () => stop.abort())
  process.once('SIGTERM', () => stop.abort())
  const target = parsed.to.replace(/\/\/[^@/]*@/, '//***@')
  process.stderr.write(`copying ${parsed.from} into ${target}\n`)
  try {
    // Imported here, not at the top: src/main.ts imports this file in every process, and the copy loads the PostgreSQL backend.
    const { copySqliteToPostgres } = await import('../stores/copy-sqlite-to-postgres.ts')
    const result = await copySqliteToPostgres(config, { ...parsed, signal: stop.signal, onProgress: progressBar((t) => process.stderr.write(t), process.stderr.isTTY === true) })
    const summary = `keys ${result.keys} new, workflow versions ${result.workflowVersions} new, budgets ${result.budgets}, rate limits ${result.rateLimits}, prices ${result.prices}, audit entries ${result.audit} read, usage records ${result.usage} read`
    process.stderr.write(result.interrupted ? `\ninterrupted; run the same command again to continue. ${summary}\n` : `done: ${summary}\n`)
    return result.interrupted ? 130 : 0
  } catch (error) {
    process.stderr.write(`\ncopy failed: ${(error as Error).message}\nNothing copied is lost; run the same command again to continue.\n`)
    return 1
  }
}

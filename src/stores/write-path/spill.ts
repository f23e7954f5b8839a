/**
 * @module The overflow of the audit and usage writers: append-only JSON Lines files next to the database. When the
 * in-memory queue is full, entries are appended here (a synchronous write into the page cache: survives a crash of the
 * process, not a power cut) and replayed into the store later. Replay first moves the active file aside, so new
 * overflow never mixes with a file being read; a file is deleted only after every entry in it was stored, and
 * stores skip ids they already have, so a crash mid-replay replays the file again without duplicates.
 *
 * Format: each file this release writes starts with a header line, `{"audit_spill":2,"fields":[…]}`, naming the
 * row's fields in order; replay matches fields by name, so entries spilled before an upgrade that added or moved
 * a field are stored, not dead-lettered. A file without a header is format 1 (rows in SPILL_FORMAT_1_FIELDS
 * order, or whole entries from releases before rows). Usage records are spilled by the same code, to files of
 * their own in the same folder (`usage-spill…`), one record object per line.
 */
import { closeSync, existsSync, fstatSync, ftruncateSync, mkdirSync, openSync, readdirSync, readSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { StringDecoder } from 'node:string_decoder'
import type { AuditLogEntry } from '../../audit/entry.ts'
import { AUDIT_ROW_FIELDS, auditRowFromFields, encodeAuditEntry, SPILL_FORMAT_1_FIELDS, type AuditRow } from '../../audit/record.ts'
import type { GatewayConfig } from '../../config/schema.ts'
import type { UsageRecord } from '../../usage/record.ts'

/** `<database>.audit-spill` beside the database file; a fresh temporary folder for an in-memory database or a server database without `audit_spill_dir`. */
export function spillDirFor(config: GatewayConfig): string {
  if (config.logging.audit_spill_dir) return resolve(config.logging.audit_spill_dir)
  if (config.database.url || config.database.path === ':memory:') return join(tmpdir(), `gateway-audit-spill-${crypto.randomUUID()}`)
  return `${resolve(config.database.path)}.audit-spill`
}

const READ_CHUNK_BYTES = 256 * 1024
export const SPILL_FORMAT = 2

/** What differs between the kinds of rows spilled: file names, header, and the line format. */
export interface SpillFormat<Row> {
  /** Files are `<name>-spill.jsonl`, `<name>-spill-<ms>-<n>.replay.jsonl` and `<name>-dead-letter.jsonl`. */
  name: string
  /** The first line of every file this release writes. */
  header: string
  /** The field names a header line declares; undefined when the line is not a header. */
  headerFields(line: string): readonly string[] | undefined
  /** The fields of a file without a header. */
  defaultFields: readonly string[]
  /** A line that is not a row gives undefined (it is dead-lettered). */
  parse(line: string, fields: readonly string[]): Row | undefined
}

export const auditSpillFormat: SpillFormat<AuditRow> = {
  name: 'audit',
  header: `${JSON.stringify({ audit_spill: SPILL_FORMAT, fields: AUDIT_ROW_FIELDS })}\n`,
  headerFields,
  defaultFields: SPILL_FORMAT_1_FIELDS,
  parse: parseRow,
}

/** Usage records are spilled as their own objects: named fields, so a record spilled before an upgrade still reads. */
export const usageSpillFormat: SpillFormat<UsageRecord> = {
  name: 'usage',
  header: `${JSON.stringify({ usage_spill: 1 })}\n`,
  headerFields: (line) => (line.startsWith('{"usage_spill"') ? [] : undefined),
  defaultFields: [],
  parse(line) {
    try {
      const record = JSON.parse(line) as UsageRecord
      return typeof record?.id === 'string' && typeof record.ts === 'number' ? record : undefined
    } catch {
      return undefined
    }
  },
}

export class SpillFiles<Row = AuditRow> {
  private fd: number | undefined
  private rotations = 0
  private readonly active: string
  private readonly replay: RegExp
  private readonly deadLetterFile: string

  constructor(
    readonly dir: string,
    private readonly format: SpillFormat<Row> = auditSpillFormat as unknown as SpillFormat<Row>,
  ) {
    this.active = `${format.name}-spill.jsonl`
    this.replay = new RegExp(`^${format.name}-spill-(\\d+)-(\\d+)\\.replay\\.jsonl$`)
    this.deadLetterFile = `${format.name}-dead-letter.jsonl`
  }

  /** Appends rows, one JSON line each; returns the bytes written. */
  append(rows: readonly Row[]): number {
    if (rows.length === 0) return 0
    this.fd ??= this.openActive()
    const size = fstatSync(this.fd).size
    let text = rows.map((row) => JSON.stringify(row)).join('\n') + '\n'
    if (size === 0) text = this.format.header + text
    const bytes = Buffer.from(text)
    let written = 0
    try {
      while (written < bytes.length) written += writeSync(this.fd, bytes, written)
    } catch (err) {
      // A full disk can take half a line: cut it off, so the next append starts on a line of its own and the
      // caller, which keeps these rows, does not store them twice.
      try {
        ftruncateSync(this.fd, size)
      } catch {}
      throw err
    }
    return bytes.length
  }

  /** Entries that could not be stored even one by one, and lines that could not be read, kept for a person. */
  deadLetter(lines: readonly string[]): void {
    if (lines.length === 0) return
    const fd = this.open(this.deadLetterFile)
    try {
      writeSync(fd, lines.join('\n') + '\n')
    } finally {
      closeSync(fd)
    }
  }

  /** True when any entry waits in a spill file. */
  hasPending(): boolean {
    return this.replayFiles().length > 0 || this.activeSize() > 0
  }

  /** Files waiting for replay and their total size. */
  pending(): { files: number; bytes: number } {
    const files = this.replayFiles()
    const active = this.activeSize()
    let bytes = active
    for (const f of files) bytes += statSync(join(this.dir, f)).size
    return { files: files.length + (active > 0 ? 1 : 0), bytes }
  }

  /** Moves the active file aside for replay; new overflow starts a fresh file. */
  rotate(): void {
    if (this.activeSize() === 0) return
    this.closeActive()
    renameSync(join(this.dir, this.active), join(this.dir, `${this.format.name}-spill-${Date.now()}-${this.rotations++}.replay.jsonl`))
  }

  /** A reader over the oldest file waiting for replay (rotating the active file when nothing else waits). */
  nextReader(): SpillReader<Row> | undefined {
    if (this.replayFiles().length === 0) this.rotate()
    const next = this.replayFiles()[0]
    return next ? new SpillReader(join(this.dir, next), this.format) : undefined
  }

  close(): void {
    this.closeActive()
  }

  private replayFiles(): string[] {
    if (!existsSync(this.dir)) return []
    const order = (name: string) => {
      const [, at = '0', n = '0'] = this.replay.exec(name) ?? []
      return [Number(at), Number(n)] as const
    }
    return readdirSync(this.dir)
      .filter((f) => this.replay.test(f))
      .sort((a, b) => {
        const [at, an] = order(a)
        const [bt, bn] = order(b)
        return at - bt || an - bn
      })
  }

  private activeSize(): number {
    if (this.fd !== undefined) return fstatSync(this.fd).size
    const path = join(this.dir, this.active)
    return existsSync(path) ? statSync(path).size : 0
  }

  /** The active file, fresh: one an earlier process left (perhaps in an older format) is moved aside for replay first. */
  private openActive(): number {
    if (this.activeSize() > 0) this.rotate()
    return this.open(this.active)
  }

  private open(name: string): number {
    mkdirSync(this.dir, { recursive: true })
    return openSync(join(this.dir, name), 'a')
  }

  private closeActive(): void {
    if (this.fd === undefined) return
    closeSync(this.fd)
    this.fd = undefined
  }
}

export interface SpillChunk<Row = AuditRow> {
  rows: Row[]
  /** Lines that are not rows (e.g. the torn last line of a hard kill). */
  corrupt: string[]
  /** The file has no more lines. */
  done: boolean
}

/** Reads a spill file in chunks of whole lines. */
export class SpillReader<Row = AuditRow> {
  private readonly fd: number
  private position = 0
  private carry = ''
  /** Whole lines read from the file but not yet handed out (a read takes whole buffers, a chunk is bounded). */
  private lines: string[] = []
  private eof = false
  /** Field names of the file's rows: its header's, else format 1's. */
  private fields: readonly string[] | undefined
  private readonly decoder = new StringDecoder('utf8')
  private readonly buffer = Buffer.alloc(READ_CHUNK_BYTES)

  constructor(
    readonly path: string,
    private readonly format: SpillFormat<Row> = auditSpillFormat as unknown as SpillFormat<Row>,
  ) {
    this.fd = openSync(path, 'r')
  }

  /** The next lines, at most `maxEntries`: a replayed chunk is one batch, however many lines a buffer held. */
  read(maxEntries: number): SpillChunk<Row> {
    const lines = this.lines
    while (lines.length < maxEntries && !this.eof) {
      const n = readSync(this.fd, this.buffer, 0, this.buffer.length, this.position)
      if (n === 0) {
        this.eof = true
        const rest = this.carry + this.decoder.end()
        this.carry = ''
        if (rest.trim()) lines.push(rest)
        break
      }
      this.position += n
      const parts = (this.carry + this.decoder.write(this.buffer.subarray(0, n))).split('\n')
      this.carry = parts.pop() ?? ''
      for (const p of parts) if (p.trim()) lines.push(p)
    }
    const taken = lines.splice(0, maxEntries)
    const chunk: SpillChunk<Row> = { rows: [], corrupt: [], done: this.eof && this.carry === '' && lines.length === 0 }
    for (const line of taken) {
      if (this.fields === undefined) {
        const declared = this.format.headerFields(line)
        this.fields = declared ?? this.format.defaultFields
        if (declared) continue
      }
      const row = this.format.parse(line, this.fields)
      if (row) chunk.rows.push(row)
      else chunk.corrupt.push(line)
    }
    return chunk
  }

  /** Deletes the file: every entry in it is stored. */
  finish(): void {
    closeSync(this.fd)
    unlinkSync(this.path)
  }

  /** Keeps the file for a later attempt. */
  abandon(): void {
    closeSync(this.fd)
  }
}

/** The field names of a header line; undefined when the line is not a header (a format 1 file). */
function headerFields(line: string): readonly string[] | undefined {
  if (!line.startsWith('{"audit_spill"')) return undefined
  try {
    const header = JSON.parse(line) as { audit_spill?: unknown; fields?: unknown }
    if (typeof header.audit_spill === 'number' && Array.isArray(header.fields) && header.fields.every((f) => typeof f === 'string')) return header.fields as string[]
  } catch {}
  return undefined
}

/** A row line (fields named by the file's header), or an entry line as versions before rows wrote them (encoded now). */
function parseRow(line: string, fields: readonly string[]): AuditRow | undefined {
  try {
    const value = JSON.parse(line) as unknown
    if (Array.isArray(value)) return auditRowFromFields(fields, value)
    const entry = value as AuditLogEntry
    if (typeof entry?.id !== 'string' || typeof entry.timestamp !== 'string' || typeof entry.data !== 'object' || entry.data === null) return undefined
    return encodeAuditEntry(entry)
  } catch {
    return undefined
  }
}

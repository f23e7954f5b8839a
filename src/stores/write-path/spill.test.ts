import { afterEach, expect, test } from 'bun:test'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { makeEntry, rowsOf } from '../../../test/helpers/audit-entries.ts'
import { AUDIT_ROW_FIELDS, auditRowId, SPILL_FORMAT_1_FIELDS } from '../../audit/record.ts'
import { SpillFiles } from './spill.ts'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'audit-spill-'))
  dirs.push(d)
  return d
}

test('appended entries come back whole, in chunks, and the file is deleted when finished', () => {
  const spill = new SpillFiles(tempDir())
  const rows = rowsOf(Array.from({ length: 25 }, (_, i) => makeEntry({ data: { error_message: `déjà vu 🙂 ${i}` } })))
  spill.append(rows.slice(0, 10))
  spill.append(rows.slice(10))
  expect(spill.pending()).toMatchObject({ files: 1 })
  const reader = spill.nextReader()!
  const read = []
  for (let chunk = reader.read(10); ; chunk = reader.read(10)) {
    read.push(...chunk.rows)
    expect(chunk.corrupt).toEqual([])
    if (chunk.done) break
  }
  reader.finish()
  expect(read).toEqual(rows)
  expect(spill.hasPending()).toBe(false)
})

test('new overflow during a replay goes to a fresh file; files replay oldest first', () => {
  const dir = tempDir()
  const spill = new SpillFiles(dir)
  const [a, b, c] = [makeEntry(), makeEntry(), makeEntry()]
  spill.append(rowsOf([a!]))
  const first = spill.nextReader()!
  spill.append(rowsOf([b!]))
  spill.rotate()
  spill.append(rowsOf([c!]))
  expect(first.read(10).rows.map(auditRowId)).toEqual([a!.id])
  first.finish()
  expect(spill.nextReader()!.read(10).rows.map(auditRowId)).toEqual([b!.id])
  expect(readdirSync(dir).filter((f) => f.endsWith('.replay.jsonl'))).toHaveLength(1)
  expect(spill.pending().files).toBe(2) // the replay file in progress and the active one
})

test('replay order follows the rotation time and counter, not the name as text', () => {
  const dir = tempDir()
  const early = makeEntry()
  const late = makeEntry()
  writeFileSync(join(dir, 'audit-spill-900-10.replay.jsonl'), `${JSON.stringify(rowsOf([late])[0])}\n`)
  writeFileSync(join(dir, 'audit-spill-900-9.replay.jsonl'), `${JSON.stringify(rowsOf([early])[0])}\n`)
  const spill = new SpillFiles(dir)
  expect(spill.nextReader()!.read(10).rows.map(auditRowId)).toEqual([early.id])
})

test('entry lines from versions before rows are encoded; lines that are neither are reported as corrupt', () => {
  const dir = tempDir()
  const legacy = makeEntry({ data: { request_body: { model: 'fast', messages: [] } } })
  const row = rowsOf([makeEntry()])[0]!
  writeFileSync(join(dir, 'audit-spill.jsonl'), `${JSON.stringify(legacy)}\n${JSON.stringify(row)}\n{"id":1}\n["short"]\nnot json\n{"id":"torn","time`)
  const chunk = new SpillFiles(dir).nextReader()!.read(100)
  expect(chunk.rows).toEqual([rowsOf([legacy])[0]!, row])
  expect(chunk.corrupt).toEqual(['{"id":1}', '["short"]', 'not json', '{"id":"torn","time'])
  expect(chunk.done).toBe(true)
})

test('a file starts with a header naming the format and the fields; a file left by an earlier process is moved aside, not appended to', () => {
  const dir = tempDir()
  const old = rowsOf([makeEntry()])[0]!
  writeFileSync(join(dir, 'audit-spill.jsonl'), `${JSON.stringify(old)}\n`)
  const spill = new SpillFiles(dir)
  const row = rowsOf([makeEntry()])[0]!
  spill.append([row])
  spill.close()
  const [header, line] = readFileSync(join(dir, 'audit-spill.jsonl'), 'utf8').trim().split('\n')
  expect(JSON.parse(header!)).toEqual({ audit_spill: 2, fields: [...AUDIT_ROW_FIELDS] })
  expect(JSON.parse(line!)).toEqual(row)
  // The earlier file (no header) is read as format 1, then the new one by its header.
  const first = spill.nextReader()!
  expect(first.read(10)).toEqual({ rows: [old], corrupt: [], done: true })
  first.finish()
  expect(spill.nextReader()!.read(10)).toEqual({ rows: [row], corrupt: [], done: true })
})

test('format 1 (spilled by the release before headers) is replayed after an upgrade', () => {
  const dir = tempDir()
  const entries = Array.from({ length: 3 }, (_, i) => makeEntry({ session_id: `s${i}`, data: { request_body: { model: 'fast', messages: [{ role: 'user', content: `q${i}` }] } } }))
  // Exactly what that release wrote: one positional row per line, no header.
  const rows = rowsOf(entries)
  expect(rows[0]).toHaveLength(SPILL_FORMAT_1_FIELDS.length)
  writeFileSync(join(dir, 'audit-spill-1-0.replay.jsonl'), rows.map((r) => JSON.stringify(r)).join('\n') + '\n')
  const chunk = new SpillFiles(dir).nextReader()!.read(10)
  expect(chunk.corrupt).toEqual([])
  expect(chunk.rows).toEqual(rows)
})

test('fields are matched by name: reordered, unknown and missing fields (a later or earlier release) still make rows', () => {
  const dir = tempDir()
  const row = rowsOf([makeEntry({ status_code: 502 })])[0]!
  const named = Object.fromEntries(AUDIT_ROW_FIELDS.map((f, i) => [f, row[i]]))
  const fields = [...AUDIT_ROW_FIELDS].reverse().filter((f) => f !== 'client_ip' && f !== 'usage')
  fields.push('a_field_from_the_future')
  const values = fields.map((f) => (f === 'a_field_from_the_future' ? 'ignored' : named[f]))
  writeFileSync(join(dir, 'audit-spill-1-0.replay.jsonl'), `${JSON.stringify({ audit_spill: 3, fields })}\n${JSON.stringify(values)}\n["too", "short"]\n`)
  const chunk = new SpillFiles(dir).nextReader()!.read(10)
  const expected = [...row]
  expected[AUDIT_ROW_FIELDS.indexOf('client_ip')] = ''
  expected[AUDIT_ROW_FIELDS.indexOf('usage')] = null
  expect(chunk.rows).toEqual([expected as typeof row])
  expect(chunk.corrupt).toEqual(['["too", "short"]'])
})

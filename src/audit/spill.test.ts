import { afterEach, expect, test } from 'bun:test'
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { makeEntry, rowsOf } from '../../test/helpers/audit-entries.ts'
import { auditRowId } from './record.ts'
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

import { expect, test } from 'bun:test'
import { type FormEvent, MAX_FIELD_BYTES, MAX_PARTS, MultipartParser } from './multipart-parser.ts'

const BOUNDARY = 'XyZ-boundary'
const file = crypto.getRandomValues(new Uint8Array(5000))
// The file holds what looks like the start of a delimiter, which must stay data.
file.set(new TextEncoder().encode(`\r\n--${BOUNDARY.slice(0, 5)}`), 1000)

async function encoded(form: FormData): Promise<Uint8Array> {
  const response = new Response(form)
  const boundary = /boundary=(.+)$/.exec(response.headers.get('content-type')!)![1]!
  return new Uint8Array(
    Buffer.from(
      Buffer.from(await response.arrayBuffer())
        .toString('latin1')
        .replaceAll(boundary, BOUNDARY),
      'latin1',
    ),
  )
}

function sampleForm(): FormData {
  const form = new FormData()
  form.append('model', 'whisper-1')
  form.append('file', new File([file], 'a "quoted".mp3', { type: 'audio/mpeg' }))
  form.append('timestamp_granularities[]', 'word')
  form.append('timestamp_granularities[]', 'segment')
  return form
}

/** Events with the file's data joined, so the result does not depend on how the bytes were cut. */
function summary(events: FormEvent[]) {
  const out: unknown[] = []
  let data: Uint8Array[] = []
  for (const event of events) {
    if (event.kind === 'data') data.push(event.bytes)
    else {
      if (event.kind === 'file_end') {
        out.push({ kind: 'data', bytes: Buffer.concat(data).toString('hex') })
        data = []
      }
      out.push(event)
    }
  }
  return out
}

function parse(body: Uint8Array, cuts: number[]): FormEvent[] {
  const parser = new MultipartParser(BOUNDARY)
  const events: FormEvent[] = []
  let from = 0
  for (const cut of [...cuts, body.length]) {
    events.push(...parser.push(body.subarray(from, cut)))
    from = cut
  }
  return [...events, ...parser.end()]
}

test('a form parses to the same fields and file bytes however its bytes are cut', async () => {
  const body = await encoded(sampleForm())
  const whole = summary(parse(body, []))
  expect(whole).toEqual([
    { kind: 'field', name: 'model', value: 'whisper-1' },
    { kind: 'file', name: 'file', filename: expect.stringContaining('quoted'), contentType: 'audio/mpeg' },
    { kind: 'data', bytes: Buffer.from(file).toString('hex') },
    { kind: 'file_end' },
    { kind: 'field', name: 'timestamp_granularities[]', value: 'word' },
    { kind: 'field', name: 'timestamp_granularities[]', value: 'segment' },
    { kind: 'done' },
  ])
  for (let cut = 1; cut < body.length; cut += 7) expect(summary(parse(body, [cut]))).toEqual(whole)
  const everyByte = Array.from({ length: body.length - 1 }, (_, i) => i + 1)
  expect(summary(parse(body, everyByte))).toEqual(whole)
})

test('malformed forms: no closing boundary, a part without a name, a header without a colon, too many parts, a large text field', () => {
  const enc = (text: string) => new TextEncoder().encode(text)
  const malformed = (text: string) => parse(enc(text), []).find((e) => e.kind === 'malformed')
  expect(malformed(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="model"\r\n\r\nm`)).toMatchObject({ message: expect.stringContaining('closing boundary') })
  expect(malformed(`--${BOUNDARY}\r\nContent-Disposition: form-data\r\n\r\nm\r\n--${BOUNDARY}--`)).toMatchObject({ message: expect.stringContaining('no name') })
  expect(malformed(`--${BOUNDARY}\r\nnonsense\r\n\r\nm\r\n--${BOUNDARY}--`)).toMatchObject({ message: expect.stringContaining('colon') })
  const part = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="f"\r\n\r\nv\r\n`
  expect(malformed(`${part.repeat(MAX_PARTS + 1)}--${BOUNDARY}--`)).toMatchObject({ message: expect.stringContaining('parts') })
  expect(malformed(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="prompt"\r\n\r\n${'x'.repeat(MAX_FIELD_BYTES + 1)}\r\n--${BOUNDARY}--`)).toMatchObject({
    message: expect.stringContaining("'prompt'"),
  })
  expect(malformed(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="a"\r\n\r\nv\r\n--${BOUNDARY}--\r\n`)).toBeUndefined()
})

test('once push returns the parser keeps no view of the chunk: a chunk overwritten after its events were used changes nothing', async () => {
  const body = await encoded(sampleForm())
  const whole = summary(parse(body, []))
  for (const size of [1, 7, 40, 333, 4096]) {
    const parser = new MultipartParser(BOUNDARY)
    const events: FormEvent[] = []
    for (let from = 0; from < body.length; from += size) {
      const chunk = body.slice(from, from + size)
      for (const event of parser.push(chunk)) events.push(event.kind === 'data' ? { kind: 'data', bytes: new Uint8Array(event.bytes) } : event)
      chunk.fill(0x2d)
    }
    expect(summary([...events, ...parser.end()])).toEqual(whole)
  }
})

test("a file full of a delimiter's beginnings (CRs, CRLF-dashes, all but its last byte) stays data, cut anywhere", async () => {
  const tricky = new TextEncoder().encode(`\r\r\r\n\r\n-\r\n--\r\n--${BOUNDARY.slice(0, -1)}\r\n--${BOUNDARY.slice(0, 3)}\r`)
  const form = new FormData()
  form.append('file', new File([tricky], 'f.bin'))
  form.append('purpose', 'batch')
  const body = await encoded(form)
  const whole = summary(parse(body, []))
  expect(whole[1]).toEqual({ kind: 'data', bytes: Buffer.from(tricky).toString('hex') })
  const everyByte = Array.from({ length: body.length - 1 }, (_, i) => i + 1)
  expect(summary(parse(body, everyByte))).toEqual(whole)
  for (let cut = 1; cut < body.length; cut++) expect(summary(parse(body, [cut]))).toEqual(whole)
})

test('what the parser keeps between pushes is its own: a chunk freed once its events are handled (upload forwarding) loses nothing', async () => {
  const tricky = new TextEncoder().encode(`\r\r\r\n\r\n-\r\n--\r\n--${BOUNDARY.slice(0, -1)}\r\n--${BOUNDARY.slice(0, 3)}\r`)
  const form = new FormData()
  form.append('model', 'm')
  form.append('file', new File([tricky, file], 'f.bin'))
  form.append('purpose', 'batch')
  const body = await encoded(form)
  const whole = summary(parse(body, []))
  for (const step of [1, 2, 3, 5, 7, 11, 64]) {
    const parser = new MultipartParser(BOUNDARY)
    const events: FormEvent[] = []
    for (let at = 0; at < body.length; at += step) {
      // Each chunk owns its buffer, as the client's chunks do, and is freed (detached) once its events were taken.
      const chunk = body.slice(at, at + step)
      for (const event of parser.push(chunk)) events.push(event.kind === 'data' ? { kind: 'data', bytes: new Uint8Array(event.bytes) } : event)
      chunk.buffer.transfer(0)
    }
    expect({ step, parsed: summary([...events, ...parser.end()]) }).toEqual({ step, parsed: whole })
  }
})

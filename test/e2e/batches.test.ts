/**
 * The Batches API end to end with the official `openai` SDK, for lines the gateway runs itself against the mock
 * OpenAI upstream: create from an input file, poll to completion, read the output and error files (OpenAI's
 * format, the caller's custom_ids), request_counts; the input checks in OpenAI's `errors` shape; owner-only reads;
 * cancellation; expiry; each line governed as a live request (model access, audit entry linked to the batch,
 * usage with the batch's labels).
 */
import { describe, expect, test } from 'bun:test'
import OpenAI, { toFile } from 'openai'
import { batchEnded, fileLines } from '../helpers/batch-results.ts'
import { useGatewaySuite } from '../helpers/gateway-suite.ts'

const t = useGatewaySuite({
  // The mock OpenAI serves live calls only: every line is run by the gateway (BATCHES_GATEWAY_RUN_ALL).
  env: { LOGGING_AUDIT_FLUSH_INTERVAL_MS: '5', BATCHES_POLL_SECONDS: '1', LOGGING_LOG_BODIES: 'true', BATCHES_GATEWAY_RUN_ALL: 'true' },
})

/** Uploads a batch input file through the Files API with the SDK (the master key's, unless another client). */
const upload = async (text: string, client = t.openai) => client.files.create({ file: await toFile(Buffer.from(text), 'input.jsonl'), purpose: 'batch' })

/** A managed key of its own, and the SDK on it: another tenant. */
async function otherTenant(): Promise<OpenAI> {
  const res = await fetch(`${t.gw.url}/admin/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.master}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: `tenant ${crypto.randomUUID()}` }),
  })
  const { key } = (await res.json()) as { key: string }
  return new OpenAI({ apiKey: key, baseURL: t.gw.baseURL, maxRetries: 0 })
}

const chatLine = (customId: string, content: string, model = 'openai/gpt-4o-mini') =>
  JSON.stringify({ custom_id: customId, method: 'POST', url: '/v1/chat/completions', body: { model, messages: [{ role: 'user', content }] } })

const jsonl = (lines: string[]) => `${lines.join('\n')}\n`

const finished = (client: OpenAI, id: string, timeoutMs = 10_000) => batchEnded(client, id, { timeoutMs })

/** The lines of an output or error file, downloaded with the SDK. */
const resultLines = (fileId: string | null | undefined, client = t.openai) => fileLines(client, fileId)

describe('gateway-run batches', () => {
  test('the SDK creates a batch, polls it to completed and reads every answer under its custom_id', async () => {
    const input = await upload(jsonl([chatLine('first', 'echo:one'), chatLine('second', 'echo:two'), chatLine('third', 'echo:three')]))
    const created = await t.openai.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h', metadata: { job: 'nightly' } })
    expect(created.id).toStartWith('batch_')
    expect(created.object).toBe('batch')
    expect(['in_progress', 'finalizing', 'completed']).toContain(created.status)
    expect(created.request_counts).toEqual({ total: 3, completed: 0, failed: 0 })
    expect(created.metadata).toEqual({ job: 'nightly' })

    const done = await finished(t.openai, created.id)
    expect(done.status).toBe('completed')
    expect(done.request_counts).toEqual({ total: 3, completed: 3, failed: 0 })
    expect(done.error_file_id).toBeNull()
    expect(done.completed_at).toBeGreaterThanOrEqual(done.created_at)
    const output = await resultLines(done.output_file_id)
    expect(output.map((l) => l.custom_id)).toEqual(['first', 'second', 'third'])
    expect(output.map((l) => l.response.body.choices[0].message.content)).toEqual(['one', 'two', 'three'])
    for (const line of output) {
      expect(line.response.status_code).toBe(200)
      expect(line.error).toBeNull()
      expect(line.id).toStartWith('batch_req_')
    }
    expect(await t.openai.files.retrieve(done.output_file_id!)).toMatchObject({ purpose: 'batch_output', filename: `${created.id}_output.jsonl` })
  })

  test('a line refused or failed goes to the error file with its answer; the others to the output file', async () => {
    const input = await upload(
      jsonl([chatLine('good', 'echo:fine'), chatLine('no-such-provider', 'echo:x', 'nowhere/gpt-4o-mini'), chatLine('upstream-503', 'echo:y', 'openai/error-503')]),
    )
    const created = await t.openai.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' })
    const done = await finished(t.openai, created.id)
    expect(done.status).toBe('completed')
    expect(done.request_counts).toEqual({ total: 3, completed: 1, failed: 2 })
    expect((await resultLines(done.output_file_id)).map((l) => l.custom_id)).toEqual(['good'])
    const errors = await resultLines(done.error_file_id)
    expect(errors.map((l) => l.custom_id)).toEqual(['no-such-provider', 'upstream-503'])
    expect(errors[0].response.status_code).toBe(404)
    expect(errors[0].response.body.error.code).toBe('model_not_found')
    expect(errors[1].response.status_code).toBeGreaterThanOrEqual(500)
  })

  test("an input file with problems fails the batch at validation, each problem in OpenAI's errors shape", async () => {
    const input = await upload(
      jsonl([
        chatLine('a', 'echo:1'),
        'not json',
        chatLine('a', 'echo:again'),
        JSON.stringify({ custom_id: 'b', method: 'GET', url: '/v1/chat/completions', body: {} }),
        JSON.stringify({ custom_id: 'c', method: 'POST', url: '/v1/embeddings', body: {} }),
        JSON.stringify({ custom_id: 'd', method: 'POST', url: '/v1/chat/completions', body: 'text' }),
      ]),
    )
    const batch = await t.openai.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' })
    expect(batch.status).toBe('failed')
    expect(batch.failed_at).toBeNumber()
    expect(batch.errors?.data?.map((e) => [e.code, e.line])).toEqual([
      ['invalid_json_line', 2],
      ['duplicate_custom_id', 3],
      ['invalid_method', 4],
      ['mismatched_endpoint', 5],
      ['invalid_body', 6],
    ])
    expect(batch.request_counts).toEqual({ total: 0, completed: 0, failed: 0 })
  })

  test('bad requests are 400s; unknown and foreign ids are 404s that tell nothing', async () => {
    const noFile = await t.openai.batches.create({ input_file_id: 'file-nope', endpoint: '/v1/chat/completions', completion_window: '24h' }).catch((e) => e)
    expect(noFile).toBeInstanceOf(OpenAI.NotFoundError)
    expect(noFile.error.code).toBe('file_not_found')
    const foreign = await upload(jsonl([chatLine('x', 'echo:x')]), await otherTenant())
    const notMine = await t.openai.batches.create({ input_file_id: foreign.id, endpoint: '/v1/chat/completions', completion_window: '24h' }).catch((e) => e)
    expect(notMine).toBeInstanceOf(OpenAI.NotFoundError)
    expect(notMine.error.code).toBe('file_not_found')
    const wrongWindow = await t.openai.batches.create({ input_file_id: foreign.id, endpoint: '/v1/chat/completions', completion_window: '1h' as '24h' }).catch((e) => e)
    expect(wrongWindow).toBeInstanceOf(OpenAI.BadRequestError)
    expect(wrongWindow.error.param).toBe('completion_window')
    const wrongEndpoint = await t.openai.batches
      .create({ input_file_id: foreign.id, endpoint: '/v1/moderations' as '/v1/chat/completions', completion_window: '24h' })
      .catch((e) => e)
    expect(wrongEndpoint).toBeInstanceOf(OpenAI.BadRequestError)
    const unknown = await t.openai.batches.retrieve('batch_nope').catch((e) => e)
    expect(unknown).toBeInstanceOf(OpenAI.NotFoundError)
    expect(unknown.error.code).toBe('batch_not_found')
  })

  test('output_expires_after sets when the output and error files expire, counted from their created_at', async () => {
    const input = await upload(jsonl([chatLine('good', 'echo:fine'), chatLine('bad', 'echo:x', 'nowhere/gpt-4o-mini')]))
    const created = await t.openai.batches.create({
      input_file_id: input.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
      output_expires_after: { anchor: 'created_at', seconds: 7200 },
    })
    const done = await finished(t.openai, created.id)
    expect(done.request_counts).toEqual({ total: 2, completed: 1, failed: 1 })
    for (const id of [done.output_file_id!, done.error_file_id!]) {
      const file = await t.openai.files.retrieve(id)
      expect(file.expires_at).toBe(file.created_at + 7200)
    }
    // Without it, the files are kept until deleted.
    const plain = await finished(t.openai, (await t.openai.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' })).id)
    expect((await t.openai.files.retrieve(plain.output_file_id!)).expires_at).toBeNull()
  })

  test('a bad output_expires_after is a 400 naming it; no batch is made', async () => {
    const input = await upload(jsonl([chatLine('x', 'echo:x')]))
    const before = (await t.openai.batches.list({ limit: 100 })).data.length
    const bad = [
      { anchor: 'created_at', seconds: 60 },
      { anchor: 'created_at', seconds: 31 * 86_400 },
      { anchor: 'last_active_at', seconds: 7200 },
      { anchor: 'created_at', seconds: 7200.5 },
      { anchor: 'created_at' },
    ]
    for (const value of bad) {
      const res = await fetch(`${t.gw.baseURL}/batches`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t.master}`, 'content-type': 'application/json' },
        body: JSON.stringify({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h', output_expires_after: value }),
      })
      expect(res.status).toBe(400)
      const body = (await res.json()) as { error: { type: string; param: string | null; message: string } }
      expect(body.error.type).toBe('invalid_request_error')
      expect(body.error.param).toStartWith('output_expires_after')
    }
    expect((await t.openai.batches.list({ limit: 100 })).data.length).toBe(before)
  })

  test('the list pages newest first with after and limit', async () => {
    const ids: string[] = []
    for (let i = 0; i < 3; i++) {
      const input = await upload(jsonl([chatLine(`p${i}`, `echo:${i}`)]))
      ids.push((await t.openai.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' })).id)
    }
    const first = await t.openai.batches.list({ limit: 2 })
    expect(first.data.map((b) => b.id)).toEqual([ids[2]!, ids[1]!])
    expect(first.has_more).toBe(true)
    const second = await t.openai.batches.list({ limit: 1, after: ids[1] })
    expect(second.data.map((b) => b.id)).toEqual([ids[0]!])
  })

  test("each line's audit entry is marked as batch work and found by the batch id", async () => {
    const input = await upload(jsonl([chatLine('audited-1', 'echo:a'), chatLine('audited-2', 'echo:b')]))
    const created = await t.openai.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' })
    await finished(t.openai, created.id)
    const page = await t.audit.eventually(
      () => t.audit.list({ batch_id: created.id }),
      (p) => p.total === 2,
    )
    const detail = await t.audit.detail(page.entries[0]!.id)
    expect(detail.path).toBe('/v1/chat/completions')
    expect(detail.data.batch?.id).toBe(created.id)
    expect(['audited-1', 'audited-2']).toContain(detail.data.batch!.custom_id)
    expect(detail.data.labels).toContain(`batch:${created.id}`)
  })
})

describe('cancellation and expiry', () => {
  /** Lines the mock answers after `delayMs`, so a batch is still running when the test acts on it. */
  const slowLines = (prefix: string, count: number, delayMs = 250) =>
    jsonl(
      Array.from({ length: count }, (_, i) =>
        JSON.stringify({
          custom_id: `${prefix}-${i}`,
          method: 'POST',
          url: '/v1/chat/completions',
          body: { model: 'openai/slow-first-byte', metadata: { delay_ms: String(delayMs) }, messages: [{ role: 'user', content: 'hi' }] },
        }),
      ),
    )

  test('a cancelled batch runs no further line; what ran is in the output file, the rest in the error file as batch_cancelled', async () => {
    const input = await upload(slowLines('cancel', 16))
    const created = await t.openai.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' })
    await t.audit.eventually(
      () => t.openai.batches.retrieve(created.id),
      (b) => b.request_counts!.completed > 0,
    )
    const cancelling = await t.openai.batches.cancel(created.id)
    expect(['cancelling', 'cancelled']).toContain(cancelling.status)
    const before = t.openaiMock.requests.length
    const done = await finished(t.openai, created.id)
    expect(done.status).toBe('cancelled')
    expect(done.cancelled_at).toBeNumber()
    const { completed, failed, total } = done.request_counts!
    expect(total).toBe(16)
    expect(completed + failed).toBe(16)
    expect(failed).toBeGreaterThan(0)
    const output = await resultLines(done.output_file_id)
    const errors = await resultLines(done.error_file_id)
    expect(output.length).toBe(completed)
    expect(errors.length).toBe(failed)
    expect(new Set(errors.map((l) => l.error.code))).toEqual(new Set(['batch_cancelled']))
    // Only the lines running when the cancel came reached the upstream afterwards.
    expect(t.openaiMock.requests.length - before).toBeLessThanOrEqual(4)
    expect([...output, ...errors].map((l) => l.custom_id).sort()).toEqual(Array.from({ length: 16 }, (_, i) => `cancel-${i}`).sort())
    // Cancelling again answers the batch as it is.
    expect((await t.openai.batches.cancel(created.id)).status).toBe('cancelled')
  })

  test('a batch past its window expires: lines not run go to the error file as batch_expired', async () => {
    const input = await upload(slowLines('expire', 16))
    const created = await t.openai.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' })
    await t.audit.eventually(
      () => t.openai.batches.retrieve(created.id),
      (b) => b.request_counts!.completed > 0,
    )
    // Time travel: the batch's 24 hours are over.
    await t.gw.gateway.stores.batches.transition(created.id, ['in_progress'], { expiresAt: Math.floor(Date.now() / 1000) - 1 })
    const done = await finished(t.openai, created.id)
    expect(done.status).toBe('expired')
    expect(done.expired_at).toBeNumber()
    const errors = await resultLines(done.error_file_id)
    expect(errors.length).toBe(done.request_counts!.failed)
    expect(errors.length).toBeGreaterThan(0)
    expect(new Set(errors.map((l) => l.error.code))).toEqual(new Set(['batch_expired']))
    expect((await resultLines(done.output_file_id)).length).toBe(done.request_counts!.completed)
  })

  test('another key cannot read, list or cancel a batch; it is told the id does not exist', async () => {
    const input = await upload(jsonl([chatLine('mine', 'echo:mine')]))
    const created = await t.openai.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' })
    const other = await otherTenant()
    const read = await other.batches.retrieve(created.id).catch((e) => e)
    expect(read).toBeInstanceOf(OpenAI.NotFoundError)
    expect(read.error.code).toBe('batch_not_found')
    const cancel = await other.batches.cancel(created.id).catch((e) => e)
    expect(cancel).toBeInstanceOf(OpenAI.NotFoundError)
    expect((await other.batches.list()).data).toEqual([])
    const done = await finished(t.openai, created.id)
    const file = await other.files.content(done.output_file_id!).catch((e) => e)
    expect(file).toBeInstanceOf(OpenAI.NotFoundError)
  })
})

describe('/admin/batches', () => {
  const admin = async (path: string, key = t.master) => {
    const res = await fetch(`${t.gw.url}/admin${path}`, { headers: { authorization: `Bearer ${key}` } })
    return { status: res.status, body: (await res.json()) as any }
  }
  const key = async (fields: Record<string, unknown>) => {
    const res = await fetch(`${t.gw.url}/admin/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.master}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `k ${crypto.randomUUID()}`, ...fields }),
    })
    return (await res.json()) as { id: string; key: string }
  }

  test("lists the subtree's batches with counts, cost and owner; one batch shows each line with its audit entry", async () => {
    const teamKey = await key({ user_path: '/team-a' })
    const team = new OpenAI({ apiKey: teamKey.key, baseURL: t.gw.baseURL, maxRetries: 0 })
    const input = await upload(jsonl([chatLine('a1', 'echo:x'), chatLine('a2', 'echo:y', 'nowhere/gpt-4o-mini')]), team)
    const created = await team.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' })
    await finished(team, created.id)

    const listed = await admin('/batches?limit=100')
    expect(listed.status).toBe(200)
    const row = listed.body.data.find((b: { id: string }) => b.id === created.id)
    expect(row).toMatchObject({ owner: teamKey.id, user_path: '/team-a', status: 'completed', request_counts: { total: 2, completed: 1, failed: 1 } })
    expect(row.cost_usd).toBeGreaterThanOrEqual(0)

    const detail = await admin(`/batches/${created.id}`)
    expect(detail.status).toBe(200)
    expect(detail.body.lines.map((l: { custom_id: string; state: string }) => [l.custom_id, l.state])).toEqual([
      ['a1', 'succeeded'],
      ['a2', 'failed'],
    ])
    expect(detail.body.lines[1]).toMatchObject({ status_code: 404, error_code: 'model_not_found' })
    const auditId = detail.body.lines[0].audit_id
    const entry = await t.audit.eventually(
      () => admin(`/audit/detail?log_id=${auditId}`),
      (r) => r.status === 200,
    )
    expect(entry.body.data.batch).toEqual({ id: created.id, custom_id: 'a1' })

    // A viewer scoped to another subtree sees none of it.
    const other = await key({ user_path: '/team-b', role: 'viewer' })
    expect((await admin('/batches?limit=100', other.key)).body.data.map((b: { id: string }) => b.id)).not.toContain(created.id)
    expect((await admin(`/batches/${created.id}`, other.key)).status).toBe(404)
    const viewer = await key({ user_path: '/team-a', role: 'viewer' })
    expect((await admin(`/batches/${created.id}`, viewer.key)).status).toBe(200)
  })
})

describe('every batchable endpoint', () => {
  test('embeddings, completions and responses lines run as their live requests do', async () => {
    const cases = [
      { endpoint: '/v1/embeddings' as const, body: { model: 'openai/text-embedding-3-small', input: 'embed me' }, check: (b: any) => expect(b.object).toBe('list') },
      {
        endpoint: '/v1/completions' as const,
        body: { model: 'openai/gpt-3.5-turbo-instruct', prompt: 'echo:completed' },
        check: (b: any) => expect(b.choices[0].text).toBe('completed'),
      },
      { endpoint: '/v1/responses' as const, body: { model: 'openai/gpt-4o-mini', input: 'hello' }, check: (b: any) => expect(b.object).toBe('response') },
    ]
    for (const c of cases) {
      const input = await upload(jsonl([JSON.stringify({ custom_id: 'only', method: 'POST', url: c.endpoint, body: c.body })]))
      const created = await t.openai.batches.create({ input_file_id: input.id, endpoint: c.endpoint, completion_window: '24h' })
      const done = await finished(t.openai, created.id)
      expect({ endpoint: c.endpoint, status: done.status, counts: done.request_counts }).toEqual({
        endpoint: c.endpoint,
        status: 'completed',
        counts: { total: 1, completed: 1, failed: 0 },
      })
      const [answer] = await resultLines(done.output_file_id)
      expect(answer.response.status_code).toBe(200)
      c.check(answer.response.body)
      const entry = await t.audit.eventually(
        () => t.audit.list({ batch_id: created.id }),
        (p) => p.total === 1,
      )
      expect(entry.entries[0]!.path).toBe(c.endpoint)
    }
  })
})

/**
 * @module Reading a batch's end and its result files through the official `openai` SDK, as the batch tests do.
 */
import type OpenAI from 'openai'

const ENDED = ['completed', 'failed', 'expired', 'cancelled']

/**
 * The batch once it has ended, polled through the SDK every `pollMs`; `tick` runs before each further poll (mock
 * batch APIs that finish their jobs when told). Throws with the batch's status and counts past `timeoutMs`.
 */
export async function batchEnded(client: OpenAI, id: string, options: { timeoutMs?: number; pollMs?: number; tick?: () => void } = {}): Promise<OpenAI.Batch> {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000)
  let batch = await client.batches.retrieve(id)
  while (!ENDED.includes(batch.status)) {
    if (Date.now() > deadline) throw new Error(`batch ${id} still ${batch.status}: ${JSON.stringify(batch.request_counts)}`)
    options.tick?.()
    await Bun.sleep(options.pollMs ?? 20)
    batch = await client.batches.retrieve(id)
  }
  return batch
}

/** The JSON lines of an output or error file, downloaded with the SDK; none for no file. */
export async function fileLines(client: OpenAI, fileId: string | null | undefined): Promise<any[]> {
  if (!fileId) return []
  const text = await (await client.files.content(fileId)).text()
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
}

/**
 * @module The outcome of a line the provider returned no result for: the batch failed before running it, expired
 * or was cancelled first (a Gemini batch returns only the answers it has), or the provider simply left it out. The
 * seam promises an outcome for every line, so such lines come back as errors in OpenAI's codes.
 */
import type { BatchResultLine, ProviderBatchState } from '../provider-batch-api.ts'

const BY_STATE: Partial<Record<ProviderBatchState, { code: string; message: string }>> = {
  failed: { code: 'batch_failed', message: 'The provider failed the batch before this line ran' },
  expired: { code: 'batch_expired', message: 'The batch expired before this line ran.' },
  cancelled: { code: 'batch_cancelled', message: 'The batch was cancelled before this line ran.' },
}

/** `reason`: why the provider failed the whole batch, when it said. */
export function missingLineResult(customId: string, state: ProviderBatchState | undefined, reason?: string): BatchResultLine {
  const known = state ? BY_STATE[state] : undefined
  if (!known) return { customId, response: null, error: { code: 'batch_result_missing', message: 'The provider reported no result for this line.' } }
  return { customId, response: null, error: { code: known.code, message: state === 'failed' && reason ? `${known.message}: ${reason}` : known.message } }
}

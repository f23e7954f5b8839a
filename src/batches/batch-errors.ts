/**
 * @module The Batches API's own refusals, in the gateway's error shape; and the codes a line fails with when the
 * gateway, not the model, ended it (written to the batch's error file).
 */
import { GatewayError } from '../errors/gateway-error.ts'

export const batchErrors = {
  /** Unknown, or another principal's: the two are not told apart. */
  batchNotFound: (id: string) =>
    new GatewayError({ status: 404, type: 'not_found_error', param: 'batch_id', code: 'batch_not_found', message: `No batch with id '${id.slice(0, 100)}'.` }),
  /** Unknown, expired or another principal's: the two are not told apart. */
  inputFileNotFound: (id: string) =>
    new GatewayError({ status: 404, type: 'not_found_error', param: 'input_file_id', code: 'file_not_found', message: `No file with id '${id.slice(0, 100)}'.` }),
  inputFilePurpose: (purpose: string) =>
    new GatewayError({
      status: 400,
      type: 'invalid_request_error',
      param: 'input_file_id',
      code: 'invalid_file_purpose',
      message: `The input file's purpose is '${purpose.slice(0, 40)}'; a batch reads a file uploaded with purpose 'batch'.`,
    }),
  filesUnavailable: () =>
    new GatewayError({
      status: 503,
      type: 'provider_error',
      code: 'files_unavailable',
      message: 'The Files API is not available on this gateway, so batches cannot read their input.',
    }),
  notCancellable: (status: string) =>
    new GatewayError({ status: 409, type: 'invalid_request_error', code: 'batch_not_cancellable', param: 'batch_id', message: `A batch that is ${status} cannot be cancelled.` }),
}

/** Why a line that never got an answer failed (the error file's `error.code`). */
export const LINE_FAILURES = {
  expired: { code: 'batch_expired', message: 'The batch expired before this request was run.' },
  cancelled: { code: 'batch_cancelled', message: 'The batch was cancelled before this request was run.' },
  /**
   * A replica claimed the line and stopped before it recorded the answer: the request may have reached the
   * provider, which offers no idempotency, so it is not sent again.
   */
  interrupted: {
    code: 'batch_line_interrupted',
    message: 'The gateway replica running this request stopped before its answer was recorded; it is not run again, because the provider may have answered it already.',
  },
} as const

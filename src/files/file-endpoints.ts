/**
 * @module The Files API's rows (src/protocols/endpoints.ts), answered by the gateway: upload, list, retrieve,
 * download and delete, each for the caller's own files only. Another principal's file id gets the same 404 as an id
 * that never existed. Expected failures are returned as GatewayErrors.
 */
import { GatewayError, gatewayErrors } from '../errors/gateway-error.ts'
import type { RequestContext } from '../pipeline/context.ts'
import type { LocalServices } from '../protocols/endpoints.ts'
import type { StoredFileInfo } from './file-access.ts'
import { newFileId } from './file-service.ts'
import { BATCH_FILE_EXPIRY_SECONDS, fileListQuery, uploadFields } from './schemas.ts'
import { receiveUploadForm } from './upload-form.ts'

const json = (body: unknown, requestId: string) => new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json', 'x-request-id': requestId } })

/** OpenAI's `file` object. */
export function fileObject(file: StoredFileInfo) {
  return {
    id: file.id,
    object: 'file' as const,
    bytes: file.bytes,
    created_at: file.createdAt,
    expires_at: file.expiresAt,
    filename: file.filename,
    purpose: file.purpose,
    status: 'processed' as const,
    status_details: null,
  }
}

export function fileNotFound(id: string): GatewayError {
  return new GatewayError({ status: 404, type: 'invalid_request_error', param: 'file_id', code: 'file_not_found', message: `No such File object: ${id.slice(0, 200)}` })
}

const ownerOf = (ctx: RequestContext) => ctx.principal!.id

/** POST /v1/files: the form read as it arrives, its file streamed to the byte store. */
export async function createFile(ctx: RequestContext, { files, filesConfig }: LocalServices): Promise<Response | GatewayError> {
  const body = ctx.streamedBody
  if (!body) return gatewayErrors.invalidRequest("The form has no 'file' part.", 'file', 'missing_file')
  const id = newFileId()
  ctx.receivedParts = []
  const received = await receiveUploadForm(body, {
    fileField: 'file',
    maxFileBytes: filesConfig.max_file_bytes,
    deadlineMs: filesConfig.upload_timeout_seconds * 1000,
    startWriter: () => files.blobs.writer(id),
    checkField: (name, value) => {
      const field = uploadFields.shape[name as keyof typeof uploadFields.shape]
      if (!field) return gatewayErrors.invalidRequest(`Unknown field '${name.slice(0, 100)}'.`, name.slice(0, 100), 'invalid_request')
      const parsed = field.safeParse(value)
      return parsed.success ? undefined : gatewayErrors.fromZod(parsed.error, { prefix: [name] })
    },
    parts: ctx.receivedParts,
  })
  if (received instanceof GatewayError) return received
  // The fields as the audit entry's request body (metadata: the bytes are described by `request_parts`).
  ctx.originalBody = received.fields
  const fields = uploadFields.safeParse(received.fields)
  if (!fields.success) {
    await received.writer.abort()
    return gatewayErrors.fromZod(fields.error, { topLevel: true })
  }
  const anchor = fields.data['expires_after[anchor]']
  const seconds = fields.data['expires_after[seconds]']
  if ((anchor === undefined) !== (seconds === undefined)) {
    await received.writer.abort()
    return gatewayErrors.invalidRequest('expires_after needs both anchor (created_at) and seconds.', 'expires_after', 'invalid_request')
  }
  const createdAt = files.nowSeconds()
  const lifetime = seconds !== undefined ? Number(seconds) : fields.data.purpose === 'batch' ? BATCH_FILE_EXPIRY_SECONDS : undefined
  const info = await files.record(received.writer, {
    id,
    owner: ownerOf(ctx),
    userPath: ctx.userPath ?? '',
    purpose: fields.data.purpose,
    filename: received.filename,
    bytes: received.bytes,
    sha256: received.sha256,
    createdAt,
    expiresAt: lifetime === undefined ? null : createdAt + lifetime,
  })
  return json(fileObject(info), ctx.requestId)
}

/** GET /v1/files: the caller's files, OpenAI's cursor page. */
export async function listFiles(ctx: RequestContext, { files }: LocalServices): Promise<Response | GatewayError> {
  const query = fileListQuery.safeParse(Object.fromEntries(new URLSearchParams(ctx.rawQuery)))
  if (!query.success) return gatewayErrors.fromZod(query.error, { topLevel: true })
  const rows = await files.list(ownerOf(ctx), query.data)
  const page = rows.slice(0, query.data.limit)
  return json(
    { object: 'list', data: page.map(fileObject), first_id: page[0]?.id ?? null, last_id: page.at(-1)?.id ?? null, has_more: rows.length > query.data.limit },
    ctx.requestId,
  )
}

/** GET /v1/files/{id}. */
export async function retrieveFile(ctx: RequestContext, { files }: LocalServices): Promise<Response | GatewayError> {
  const id = ctx.pathParam ?? ''
  const file = await files.get(id, ownerOf(ctx))
  return file ? json(fileObject(file), ctx.requestId) : fileNotFound(id)
}

/** GET /v1/files/{id}/content: the bytes streamed from the byte store. */
export async function fileContent(ctx: RequestContext, { files }: LocalServices): Promise<Response | GatewayError> {
  const id = ctx.pathParam ?? ''
  const opened = await files.open(id, ownerOf(ctx))
  if (!opened) return fileNotFound(id)
  return new Response(opened.body, {
    headers: {
      'content-type': 'application/octet-stream',
      'content-length': String(opened.info.bytes),
      'content-disposition': `attachment; filename="${opened.info.filename.replace(/[^\x20-\x7e]|["\\]/g, '_')}"`,
      'x-request-id': ctx.requestId,
    },
  })
}

/** DELETE /v1/files/{id}. */
export async function deleteFile(ctx: RequestContext, { files }: LocalServices): Promise<Response | GatewayError> {
  const id = ctx.pathParam ?? ''
  const deleted = await files.delete(id, ownerOf(ctx))
  return deleted ? json({ id: deleted.id, object: 'file', deleted: true }, ctx.requestId) : fileNotFound(id)
}

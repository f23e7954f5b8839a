/**
 * @module The Uploads API's rows (src/protocols/endpoints.ts), answered by the gateway for the caller's own
 * uploads: create, add a part (its `data` streamed to the byte store), complete into a file, cancel.
 */
import { GatewayError } from '../errors/gateway-error.ts'
import type { RequestContext } from '../pipeline/context.ts'
import type { LocalServices } from '../protocols/endpoints.ts'
import type { StoredUpload } from '../stores/types.ts'
import type { StoredFileInfo } from './file-access.ts'
import { fileObject } from './file-endpoints.ts'
import { completeUploadRequest, createUploadRequest } from './upload-schemas.ts'
import { uploadNotFound } from './upload-service.ts'

const json = (body: unknown, requestId: string) => new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json', 'x-request-id': requestId } })

/** OpenAI's `upload` object. */
function uploadObject(upload: StoredUpload, file: StoredFileInfo | null = null) {
  return {
    id: upload.id,
    object: 'upload' as const,
    bytes: upload.bytes,
    created_at: upload.createdAt,
    expires_at: upload.expiresAt,
    filename: upload.filename,
    purpose: upload.purpose,
    status: upload.status,
    file: file ? fileObject(file) : null,
  }
}

const ownerOf = (ctx: RequestContext) => ctx.principal!.id

/** POST /v1/uploads (the body was checked against `createUploadRequest` by the request validator). */
export async function createUpload(ctx: RequestContext, { uploads }: LocalServices): Promise<Response | GatewayError> {
  const body = createUploadRequest.parse(ctx.body)
  const made = await uploads.create({
    owner: ownerOf(ctx),
    userPath: ctx.userPath ?? '',
    bytes: body.bytes,
    filename: body.filename,
    mimeType: body.mime_type,
    purpose: body.purpose,
    fileExpiresAfter: body.expires_after?.seconds ?? null,
  })
  return made instanceof GatewayError ? made : json(uploadObject(made), ctx.requestId)
}

/** POST /v1/uploads/{id}/parts */
export async function addUploadPart(ctx: RequestContext, { uploads }: LocalServices): Promise<Response | GatewayError> {
  const id = ctx.pathParam ?? ''
  if (!ctx.streamedBody) return uploadNotFound(id)
  const part = await uploads.addPart(id, ownerOf(ctx), ctx.streamedBody)
  if (part instanceof GatewayError) return part
  return json({ id: part.id, object: 'upload.part', created_at: part.createdAt, upload_id: part.uploadId }, ctx.requestId)
}

/** POST /v1/uploads/{id}/complete */
export async function completeUpload(ctx: RequestContext, { uploads }: LocalServices): Promise<Response | GatewayError> {
  const body = completeUploadRequest.parse(ctx.body)
  const done = await uploads.complete(ctx.pathParam ?? '', ownerOf(ctx), body.part_ids, body.md5)
  return done instanceof GatewayError ? done : json(uploadObject(done.upload, done.file), ctx.requestId)
}

/** POST /v1/uploads/{id}/cancel */
export async function cancelUpload(ctx: RequestContext, { uploads }: LocalServices): Promise<Response | GatewayError> {
  const cancelled = await uploads.cancel(ctx.pathParam ?? '', ownerOf(ctx))
  return cancelled instanceof GatewayError ? cancelled : json(uploadObject(cancelled), ctx.requestId)
}

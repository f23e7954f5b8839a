/**
 * @module The zod schemas that only the OpenAPI document names (the audit API's answers, the GatewayError shape),
 * built on the first /openapi/json instead of at start-up: loading src/audit/schemas.ts built about 400 zod
 * schemas, 1.1 MB of the JavaScript heap that every process held for a document it may never serve
 * (docs/workers.md, "Memory per process"). `require` here, not a static import, is what defers them.
 */
import type { z } from 'zod'

export const auditSchemas = () => require('../audit/schemas.ts') as typeof import('../audit/schemas.ts')

/** The GatewayError body, for the documentation of every route's error answers. */
export const gatewayErrorDoc = (): z.ZodType => auditSchemas().gatewayErrorSchema

/**
 * @module The `audit` workflow feature: one audit entry per request. The manifest asks for the audit detail
 * (bodies and headers as LOGGING_LOG_BODIES / LOGGING_LOG_HEADERS say); `onComplete`, which the pipeline calls
 * exactly once however the request ended, builds the entry and hands it to the writer queue
 * (src/stores/write-path/audit-writer.ts) without waiting.
 * Authentication failures over the flood limit (`ctx.auditSuppressed`) are counted instead of written. Logged
 * headers never carry the master key or a provider key, whatever header they came in (src/pipeline/headers.ts).
 */
import { captureRequest } from '../../src/audit/capture.ts'
import { definePlugin } from '../../src/pipeline/types.ts'
import { auditSinkManifest } from './manifest.ts'

export const auditSink = definePlugin({
  manifest: auditSinkManifest,
  create({ audit, config, providers }) {
    const knownSecrets = [...providers.secrets(), ...(config.master_key ? [config.master_key] : [])]
    return {
      onComplete(ctx, outcome) {
        if (ctx.auditSuppressed) {
          audit.recordSuppressed()
          return
        }
        const { entry, bodyTexts } = captureRequest(ctx, outcome, knownSecrets)
        audit.record(entry, bodyTexts)
      },
    }
  },
})

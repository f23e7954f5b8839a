import { z } from 'zod'
import type { PluginManifest } from '../../src/pipeline/types.ts'

export const auditSinkConfig = z.object({})

export const auditSinkManifest = {
  id: 'audit-sink',
  stage: 'observe',
  order: 100,
  summary:
    'Writes one audit log entry per /v1 request (also failed ones) off the hot path: bodies and headers when LOGGING_LOG_BODIES / LOGGING_LOG_HEADERS are on, attempts, failover, revisions, features and usage.',
  features: ['audit'],
  captures: { auditDetail: true },
  config: auditSinkConfig,
} as const satisfies PluginManifest<typeof auditSinkConfig>

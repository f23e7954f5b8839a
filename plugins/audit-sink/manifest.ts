import { definePluginManifest, noSettings } from '../../src/pipeline/types.ts'

export const auditSinkManifest = definePluginManifest({
  id: 'audit-sink',
  summary:
    'Writes one audit log entry per /v1 request (also failed ones) off the hot path: bodies and headers when LOGGING_LOG_BODIES / LOGGING_LOG_HEADERS are on, attempts, failover, revisions, features and usage.',
  features: ['audit'],
  captures: { auditDetail: true },
  config: noSettings,
})

/** Bodies larger than this are not stored in audit entries, only flagged (service description: 1 MB). */
export const BODY_CAPTURE_LIMIT_BYTES = 1024 * 1024

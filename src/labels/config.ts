/**
 * @module The `labels` configuration: which request headers carry labels and how many/how long they may be.
 * See docs/labels.md.
 */
import { z } from 'zod'

/** An HTTP header name (RFC 9110 token), stored lower-case; '' switches the source off. */
const headerName = z
  .string()
  .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]*$/, 'expected an HTTP header name (letters, digits, "-"), or "" to switch it off')
  .transform((name) => name.toLowerCase())

export const labelsConfigSchema = z.strictObject({
  /** A comma-separated list of labels: `X-Gateway-Labels: checkout, nightly`. */
  header: headerName.default('x-gateway-labels'),
  /** One header per label: `X-Gateway-Tag-Team: payments` is the label `team:payments`. */
  tag_header_prefix: headerName.default('x-gateway-tag-'),
  /** Labels per request, after duplicates are dropped; more is a 400. */
  max_count: z.coerce.number().int().min(1).max(64).default(10),
  /** Characters per label (`name:value` for tag headers); longer is a 400. */
  max_length: z.coerce.number().int().min(1).max(256).default(64),
})

export type LabelsConfig = z.infer<typeof labelsConfigSchema>

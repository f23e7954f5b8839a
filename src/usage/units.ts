/**
 * @module Work priced per unit rather than per token: images (by size and quality), seconds of audio in, characters
 * of text to speak, rerank search units, priced MCP tool calls (src/mcp/call-usage.ts). A request's usage carries at
 * most one such unit besides its tokens (no API mixes two); the usage record stores it as `unit`, `units` (the quantity) and `unit_variant` (what the price
 * depends on: `1024x1024/hd` for images), the price table prices it (`per_unit` in src/usage/pricing.ts), and the
 * usage reports sum each unit under its own name (`UNIT_TOTALS`). A unit added here needs no migration.
 */

export const USAGE_UNITS = ['image', 'audio_second', 'character', 'search_unit', 'call'] as const
export type UsageUnit = (typeof USAGE_UNITS)[number]

/** The name of each unit's sum in the usage reports (`GET /admin/usage/summary`, `…/breakdown`). */
export const UNIT_TOTALS = { image: 'images', audio_second: 'audio_seconds', character: 'characters', search_unit: 'search_units', call: 'calls' } as const satisfies Record<
  UsageUnit,
  string
>
export type UnitTotalName = (typeof UNIT_TOTALS)[UsageUnit]

/** Non-token work of one request, as the usage record stores it. */
export interface UnitUsage {
  unit: UsageUnit
  /** How many: images, seconds (fractional), characters, search units. */
  units: number
  /** What the unit's price depends on (`<size>/<quality>` for images); '' when nothing does. */
  unit_variant: string
}

/** The variant of an image: `<size>/<quality>`, e.g. `1024x1024/hd` (either part may be empty: the API's default). */
export function imageVariant(size: unknown, quality: unknown): string {
  return `${typeof size === 'string' ? size : ''}/${typeof quality === 'string' ? quality : ''}`
}

/** The unit fields of a usage (a record, a TokenUsage) as one UnitUsage; undefined when it did no such work. */
export function unitUsageOf(usage: Partial<UnitUsage> | undefined): UnitUsage | undefined {
  if (!usage?.unit || !usage.units) return undefined
  return { unit: usage.unit, units: usage.units, unit_variant: usage.unit_variant ?? '' }
}

/** One sum per unit under its report name (UNIT_TOTALS), made by `sum(unit, name)`: how each store writes its query. */
export function unitSums<T>(sum: (unit: UsageUnit, name: UnitTotalName) => T): Record<UnitTotalName, T> {
  return Object.fromEntries(USAGE_UNITS.map((unit) => [UNIT_TOTALS[unit], sum(unit, UNIT_TOTALS[unit])])) as Record<UnitTotalName, T>
}

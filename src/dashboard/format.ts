/** @module How numbers, times and money look everywhere in the dashboard. */
import { UNIT_TOTALS, type UsageUnit } from '../usage/units.ts'

const integer = new Intl.NumberFormat('en-US')
const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 4 })
const subCent = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', maximumSignificantDigits: 2 })
const dateTime = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'medium' })
const date = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium' })

export const formatCount = (n: number) => integer.format(n)
/** Sub-cent amounts (one cheap request) keep two significant digits instead of rounding to $0.00. */
export const formatUsd = (n: number) => (n !== 0 && Math.abs(n) < 0.01 ? subCent : usd).format(n)
export const formatDateTime = (iso: string) => dateTime.format(new Date(iso))
export const formatDate = (iso: string) => date.format(new Date(iso))

export function formatDurationNs(ns: number): string {
  const ms = ns / 1e6
  if (ms < 1) return '<1 ms'
  if (ms < 1000) return `${Math.round(ms)} ms`
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`
}

/** What a unit of non-token work is called, by the name of its sum in the usage reports. */
export const UNIT_LABELS: Record<(typeof UNIT_TOTALS)[UsageUnit], string> = {
  images: 'Images',
  audio_seconds: 'Audio seconds',
  characters: 'Characters spoken',
  search_units: 'Search units',
  calls: 'Tool calls',
}

/** `2 images (1024x1024/hd)`, `12.5 audio seconds`. */
export function formatUnits(unit: UsageUnit, units: number, variant: string | undefined): string {
  const label = UNIT_LABELS[UNIT_TOTALS[unit]].toLowerCase()
  return `${formatCount(units)} ${label}${variant ? ` (${variant})` : ''}`
}

/** `YYYY-MM-DD` of a UTC day, as the admin API's date parameters expect. */
export const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10)

/** An ISO timestamp as the value of an `<input type="datetime-local">` (local time, minutes). */
export function toLocalInput(iso: string | null): string {
  if (!iso) return ''
  const at = new Date(iso)
  return new Date(at.getTime() - at.getTimezoneOffset() * 60_000).toISOString().slice(0, 16)
}

export const prettyJson = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value, null, 2))

/** @jsxImportSource preact */
/**
 * @module Preset ranges (the last N UTC days, as the admin API counts them) or a custom start and end day.
 * The range lives in the URL as `days` or `start_date` + `end_date`, the admin API's own parameters.
 */
import { utcDay } from '../format.ts'

export type DateRange = { days: number } | { start_date: string; end_date: string }

export function dateRangeOf(query: URLSearchParams, defaultDays: number): DateRange {
  const start = query.get('start_date')
  const end = query.get('end_date')
  if (start && end) return { start_date: start, end_date: end }
  const days = Number(query.get('days'))
  return { days: Number.isInteger(days) && days > 0 ? days : defaultDays }
}

const presetLabel = (days: number) => (days === 1 ? 'Today' : `${days} days`)

export function DateRangeFields({ range, presets, onChange }: { range: DateRange; presets: number[]; onChange: (range: DateRange) => void }) {
  const custom = 'start_date' in range
  const today = utcDay(Date.now())
  return (
    <fieldset class="date-range">
      <legend>Date range (UTC)</legend>
      <div role="group">
        {presets.map((days) => (
          <button type="button" key={days} class="secondary" aria-pressed={!custom && range.days === days} onClick={() => onChange({ days })}>
            {presetLabel(days)}
          </button>
        ))}
        <button type="button" class="secondary" aria-pressed={custom} onClick={() => custom || onChange({ start_date: utcDay(Date.now() - 6 * 86_400_000), end_date: today })}>
          Custom
        </button>
      </div>
      {custom && (
        <div class="date-range-custom">
          <DayInput label="From" value={range.start_date} max={range.end_date} onPick={(start_date) => onChange({ ...range, start_date })} />
          <DayInput label="To" value={range.end_date} min={range.start_date} onPick={(end_date) => onChange({ ...range, end_date })} />
        </div>
      )}
    </fieldset>
  )
}

/** One end of a custom range: a required date input; clearing it keeps the previous day. */
function DayInput({ label, value, min, max, onPick }: { label: string; value: string; min?: string; max?: string; onPick: (day: string) => void }) {
  return (
    <label>
      {label}
      <input type="date" value={value} min={min} max={max} required onChange={(e) => e.currentTarget.value && onPick(e.currentTarget.value)} />
    </label>
  )
}

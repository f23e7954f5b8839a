/** @jsxImportSource preact */
/**
 * @module The Audit Logs filters. They live in the URL with the admin API's own parameter names, so a filtered
 * list can be bookmarked and Back returns to it.
 */
import type { QueryParams } from '../api/admin-client.ts'
import { DateRangeFields, dateRangeOf, type DateRange } from '../components/date-range-fields.tsx'
import { DebouncedInput } from '../components/debounced-input.tsx'

const AUDIT_PAGE_SIZE = 25
const DEFAULT_DAYS = 30

const TEXT_FILTERS = [
  { name: 'requested_model', label: 'Model', placeholder: 'gpt-4o-mini' },
  { name: 'provider', label: 'Provider', placeholder: 'openai' },
  { name: 'path', label: 'Path', placeholder: '/v1/chat/completions' },
  { name: 'user_path', label: 'User path', placeholder: '/acme/team-a' },
  { name: 'session_id', label: 'Session', placeholder: 'session id' },
  { name: 'label', label: 'Label', placeholder: 'team:payments' },
] as const

const CHOICE_FILTERS = [
  { name: 'method', label: 'Method', options: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].map((m) => [m, m]) },
  {
    name: 'error_type',
    label: 'Error type',
    options: ['provider_error', 'rate_limit_error', 'invalid_request_error', 'authentication_error', 'not_found_error'].map((t) => [t, t]),
  },
  {
    name: 'stream',
    label: 'Stream',
    options: [
      ['true', 'streaming'],
      ['false', 'not streaming'],
    ],
  },
] as const

const FILTER_NAMES = [...TEXT_FILTERS.map((f) => f.name), ...CHOICE_FILTERS.map((f) => f.name), 'status_code']

/** The /admin/audit/log parameters the URL asks for. */
export function auditParamsOf(query: URLSearchParams): QueryParams {
  const params: QueryParams = { ...dateRangeOf(query, DEFAULT_DAYS), limit: AUDIT_PAGE_SIZE, offset: query.get('offset') ?? undefined, search: query.get('search') ?? undefined }
  for (const name of FILTER_NAMES) params[name] = query.get(name) ?? undefined
  return params
}

export type FilterChanges = Record<string, string | undefined>

export function AuditFilters({ query, onChange }: { query: URLSearchParams; onChange: (changes: FilterChanges) => void }) {
  const active = FILTER_NAMES.filter((name) => query.get(name)).length
  const setRange = (range: DateRange) =>
    onChange(
      'days' in range ? { days: String(range.days), start_date: undefined, end_date: undefined } : { days: undefined, start_date: range.start_date, end_date: range.end_date },
    )
  return (
    <>
      <div class="toolbar">
        <DebouncedInput
          label="Search the audit log"
          placeholder="Search request id, model, path, error…"
          value={query.get('search') ?? ''}
          onCommit={(search) => onChange({ search })}
        />
        <DateRangeFields range={dateRangeOf(query, DEFAULT_DAYS)} presets={[1, 7, 30]} onChange={setRange} />
      </div>
      <details class="filters" open={active > 0}>
        <summary>Filters{active > 0 && ` (${active} active)`}</summary>
        <div class="filter-grid">
          {TEXT_FILTERS.map((filter) => (
            <label key={filter.name}>
              {filter.label}
              <DebouncedInput placeholder={filter.placeholder} value={query.get(filter.name) ?? ''} onCommit={(value) => onChange({ [filter.name]: value.trim() })} />
            </label>
          ))}
          {CHOICE_FILTERS.map((filter) => (
            <label key={filter.name}>
              {filter.label}
              <select value={query.get(filter.name) ?? ''} onChange={(event) => onChange({ [filter.name]: event.currentTarget.value })}>
                <option value="">any</option>
                {filter.options.map(([value, label]) => (
                  <option key={value} value={value}>
                    {label}
                  </option>
                ))}
              </select>
            </label>
          ))}
          <label>
            Status
            <DebouncedInput numeric placeholder="429" value={query.get('status_code') ?? ''} onCommit={(status_code) => onChange({ status_code })} />
          </label>
          <button type="button" class="secondary outline" disabled={active === 0} onClick={() => onChange(Object.fromEntries(FILTER_NAMES.map((name) => [name, undefined])))}>
            Clear filters
          </button>
        </div>
      </details>
    </>
  )
}

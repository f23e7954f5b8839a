/** @jsxImportSource preact */
/** @module Usage: totals over a range, requests / tokens / cost per day, and the sums by model, provider, key, user path or label. */
import { useAdmin } from '../api/admin-context.ts'
import type { QueryParams } from '../api/admin-client.ts'
import { apiKeyPageSchema, USAGE_GROUPS, usageBreakdownSchema, usageSummarySchema, type UsageGroup, type UsageRow } from '../api/schemas.ts'
import { DailyChart } from '../components/daily-chart.tsx'
import { DateRangeFields, dateRangeOf, type DateRange } from '../components/date-range-fields.tsx'
import { EmptyState, Loadable } from '../components/status.tsx'
import { useRemote } from '../components/use-remote.ts'
import { formatCount, formatUsd, UNIT_LABELS, utcDay } from '../format.ts'
import { UNIT_TOTALS } from '../../usage/units.ts'
import { hrefOf, navigate } from '../router.ts'

const DEFAULT_DAYS = 30
const DAY_MS = 86_400_000
const GROUP_LABELS: Record<UsageGroup, string> = { model: 'Model', provider: 'Provider', key: 'API key', user_path: 'User path', label: 'Label' }

export function UsageView({ query }: { query: URLSearchParams }) {
  const admin = useAdmin()
  const range = dateRangeOf(query, DEFAULT_DAYS)
  const group = USAGE_GROUPS.find((g) => g === query.get('by')) ?? 'model'
  const rangeKey = JSON.stringify(range)
  const summary = useRemote(() => admin.get('/usage/summary', usageSummarySchema, range), [admin, rangeKey])
  const daily = useRemote(() => admin.get('/usage/breakdown', usageBreakdownSchema, { ...range, by: 'provider', interval: 'day' }), [admin, rangeKey])
  const groups = useRemote(() => admin.get('/usage/breakdown', usageBreakdownSchema, { ...range, by: group }), [admin, rangeKey, group])
  const keyNames = useRemote(async () => {
    if (group !== 'key') return new Map<string, string>()
    const page = await admin.get('/keys', apiKeyPageSchema, { include_revoked: true, limit: 100 })
    return new Map(page.keys.map((key) => [key.id, key.name]))
  }, [admin, group])

  function update(changes: QueryParams) {
    const next = new URLSearchParams(query)
    for (const name of ['days', 'start_date', 'end_date']) next.delete(name)
    for (const [name, value] of Object.entries(changes)) if (value !== undefined) next.set(name, String(value))
    navigate(hrefOf(['usage'], next), { replace: true })
  }

  return (
    <section aria-labelledby="usage-title">
      <div class="view-header">
        <h1 id="usage-title">Usage</h1>
      </div>
      <DateRangeFields range={range} presets={[7, 30, 90]} onChange={(next: DateRange) => update({ ...next, by: group })} />
      <Loadable remote={summary} label="Loading totals…">
        {(totals) => (
          <div class="stat-cards">
            <Stat label="Requests" value={formatCount(totals.requests)} />
            <Stat label="Input tokens" value={formatCount(totals.input_tokens)} note={`${formatCount(totals.cached_input_tokens)} cached`} />
            <Stat label="Output tokens" value={formatCount(totals.output_tokens)} />
            <Stat label="Cost" value={formatUsd(totals.cost_usd)} note={`${formatUsd(totals.saved_usd)} saved`} />
            <Stat label="Cache hits" value={formatCount(totals.cache_hits)} />
            {/* Work priced per unit, only when the range has some. */}
            {Object.values(UNIT_TOTALS).map((name) => totals[name] > 0 && <Stat key={name} label={UNIT_LABELS[name]} value={formatCount(totals[name])} />)}
          </div>
        )}
      </Loadable>
      <Loadable remote={daily} label="Loading the daily series…">
        {(result) => <DailyCharts start={result.start} end={result.end} rows={result.data} />}
      </Loadable>
      <h2>By {GROUP_LABELS[group].toLowerCase()}</h2>
      <div role="group" class="group-switch" aria-label="Group by">
        {USAGE_GROUPS.map((g) => (
          <button key={g} type="button" class="secondary" aria-pressed={g === group} onClick={() => update({ ...range, by: g })}>
            {GROUP_LABELS[g]}
          </button>
        ))}
      </div>
      <Loadable remote={groups} label="Loading…">
        {(result) => <GroupTable group={group} rows={result.data} names={keyNames.data} />}
      </Loadable>
    </section>
  )
}

function Stat({ label, value, note }: { label: string; value: string; note?: string }) {
  return (
    <article class="stat">
      <small>{label}</small>
      <strong>{value}</strong>
      {note && <small class="muted">{note}</small>}
    </article>
  )
}

function DailyCharts({ start, end, rows }: { start: string; end: string; rows: UsageRow[] }) {
  const days: string[] = []
  for (let at = Date.parse(`${utcDay(Date.parse(start))}T00:00:00Z`); at < Date.parse(end); at += DAY_MS) days.push(utcDay(at))
  const sum = (field: 'requests' | 'total_tokens' | 'cost_usd') => days.map((day) => rows.filter((r) => r.day === day).reduce((total, r) => total + r[field], 0))
  return (
    <div class="chart-grid">
      <DailyChart title="Requests" days={days} values={sum('requests')} format={formatCount} />
      <DailyChart title="Tokens" days={days} values={sum('total_tokens')} format={formatCount} />
      <DailyChart title="Cost" days={days} values={sum('cost_usd')} format={formatUsd} />
    </div>
  )
}

function GroupTable({ group, rows, names }: { group: UsageGroup; rows: UsageRow[]; names?: Map<string, string> }) {
  if (rows.length === 0) return <EmptyState>No usage in this range.</EmptyState>
  const labelOf = (row: UsageRow) => {
    const value = group === 'key' ? row.key_id : row[group]
    if (group === 'label' && !value) return '(no label)'
    return (value && names?.get(value)) || value || '–'
  }
  return (
    <div class="table-scroll">
      <table class="striped">
        <thead>
          <tr>
            <th scope="col">{GROUP_LABELS[group]}</th>
            <th scope="col" class="num">
              Requests
            </th>
            <th scope="col" class="num">
              Input tokens
            </th>
            <th scope="col" class="num">
              Output tokens
            </th>
            <th scope="col" class="num">
              Total tokens
            </th>
            <th scope="col" class="num">
              Cost
            </th>
            <th scope="col" class="num">
              Saved
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => (
            <tr key={i}>
              <td>{labelOf(row)}</td>
              <td class="num">{formatCount(row.requests)}</td>
              <td class="num">{formatCount(row.input_tokens)}</td>
              <td class="num">{formatCount(row.output_tokens)}</td>
              <td class="num">{formatCount(row.total_tokens)}</td>
              <td class="num">{formatUsd(row.cost_usd)}</td>
              <td class="num">{formatUsd(row.saved_usd)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

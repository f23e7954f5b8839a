/**
 * @module Calendar windows in UTC for budgets (hour, day, week starting Monday, month) and fixed windows for
 * rate limits (minute, day): where the current one started and when it resets.
 */

export type BudgetWindow = 'hour' | 'day' | 'week' | 'month'

export function windowBounds(window: BudgetWindow | 'minute', at: number): { start: number; end: number } {
  const d = new Date(at)
  switch (window) {
    case 'minute': {
      const start = Math.floor(at / 60_000) * 60_000
      return { start, end: start + 60_000 }
    }
    case 'hour': {
      const start = Math.floor(at / 3_600_000) * 3_600_000
      return { start, end: start + 3_600_000 }
    }
    case 'day': {
      const start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate())
      return { start, end: start + 86_400_000 }
    }
    case 'week': {
      const dayStart = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate())
      const sinceMonday = (d.getUTCDay() + 6) % 7
      const start = dayStart - sinceMonday * 86_400_000
      return { start, end: start + 7 * 86_400_000 }
    }
    case 'month': {
      const start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)
      return { start, end: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) }
    }
  }
}

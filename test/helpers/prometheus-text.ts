/**
 * @module Parses a Prometheus text exposition with prometheus_client's parser (Python, in the .venv made by
 * scripts/python-venv.sh, which this helper runs when the venv is missing): the tests read /metrics the way a
 * scraper does, not with a parser of our own.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'

const ROOT = join(import.meta.dir, '..', '..')
const PYTHON = join(ROOT, '.venv', 'bin', 'python')

export interface PromSample {
  name: string
  labels: Record<string, string>
  value: number | '+Inf' | null
}
export interface PromFamily {
  name: string
  /** counter, gauge, histogram, summary, unknown… */
  type: string
  help: string
  samples: PromSample[]
}

export function parsePrometheusText(text: string): Map<string, PromFamily> {
  if (!existsSync(PYTHON) || !existsSync(join(ROOT, '.venv', '.requirements'))) {
    const setup = Bun.spawnSync([join(ROOT, 'scripts', 'python-venv.sh')], { stdout: 'inherit', stderr: 'inherit' })
    if (setup.exitCode !== 0) throw new Error('scripts/python-venv.sh failed')
  }
  const run = Bun.spawnSync([PYTHON, join(ROOT, 'test', 'python', 'parse_metrics.py')], { stdin: new TextEncoder().encode(text) })
  if (run.exitCode !== 0) throw new Error(`prometheus_client could not parse the exposition: ${run.stderr.toString()}`)
  const families = JSON.parse(run.stdout.toString()) as PromFamily[]
  return new Map(families.map((f) => [f.name, f]))
}

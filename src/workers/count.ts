/**
 * @module How many worker processes `GATEWAY_WORKERS` asks for: a number, or `auto` for the cores this process
 * may use. Unset, empty or 1 means one process and no primary.
 */
import { availableParallelism } from 'node:os'

export class WorkerCountError extends Error {}

export function workerCount(raw: string | undefined, cores = availableParallelism()): number {
  const value = (raw ?? '').trim().toLowerCase()
  if (value === '') return 1
  if (value === 'auto') return Math.max(1, cores)
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 256) {
    throw new WorkerCountError(`GATEWAY_WORKERS must be a whole number from 1 to 256, or 'auto' (the number of cores); got '${raw}'.`)
  }
  return Number(value)
}

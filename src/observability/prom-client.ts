/**
 * @module The parts of prom-client the gateway uses, loaded from their own files. prom-client's index loads all
 * of it: the default collectors, the Pushgateway (node:http/https) and, through its CPU collector,
 * `@opentelemetry/api` (about 90 modules, 10 MiB resident in every process, for code the gateway never calls).
 * Types still come from the package's own declarations.
 */
import type * as Prom from 'prom-client'

export const Registry = require('prom-client/lib/registry') as typeof Prom.Registry
export const Counter = require('prom-client/lib/counter') as typeof Prom.Counter
export const Gauge = require('prom-client/lib/gauge') as typeof Prom.Gauge
export const AggregatorRegistry = require('prom-client/lib/cluster') as typeof Prom.AggregatorRegistry
export type Registry = Prom.Registry
export type Counter<T extends string = string> = Prom.Counter<T>
export type Gauge<T extends string = string> = Prom.Gauge<T>
export type { MetricObjectWithValues, MetricValue } from 'prom-client'

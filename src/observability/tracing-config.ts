/**
 * @module Tracing settings from the standard OpenTelemetry environment variables
 * (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/). Tracing is off unless an
 * OTLP endpoint is set; `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none` switch it off again.
 */
import type { Sampler } from '@opentelemetry/sdk-trace'

export interface TracingSettings {
  /** Where spans are POSTed (OTLP/HTTP, JSON encoding). */
  url: string
  serviceName: string
  resourceAttributes: Record<string, string>
  sampler: Sampler
  samplerName: string
  /** Prompt and completion text on spans (`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`); off by default. */
  captureContent: boolean
}

type Env = Record<string, string | undefined>

export class TracingConfigError extends Error {}

/** The settings, or undefined when tracing is off. */
export function tracingSettingsFromEnv(env: Env): TracingSettings | undefined {
  if (isTrue(env.OTEL_SDK_DISABLED)) return undefined
  const exporter = (env.OTEL_TRACES_EXPORTER ?? 'otlp').trim().toLowerCase()
  if (exporter === 'none') return undefined
  if (exporter !== 'otlp') throw new TracingConfigError(`OTEL_TRACES_EXPORTER: only 'otlp' (or 'none') is supported, got '${exporter}'`)
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || env.OTEL_EXPORTER_OTLP_PROTOCOL
  if (protocol === 'grpc') throw new TracingConfigError('OTEL_EXPORTER_OTLP_PROTOCOL: grpc is not supported; use http/json or http/protobuf (spans are sent as OTLP/HTTP JSON)')
  const url = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || (env.OTEL_EXPORTER_OTLP_ENDPOINT ? `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces` : '')
  if (!url) return undefined
  if (!/^https?:\/\//.test(url)) throw new TracingConfigError(`OTEL_EXPORTER_OTLP_ENDPOINT: expected an http(s) URL, got '${url}'`)
  const resourceAttributes = parseResourceAttributes(env.OTEL_RESOURCE_ATTRIBUTES ?? '')
  const { sampler, name } = samplerFromEnv(env.OTEL_TRACES_SAMPLER, env.OTEL_TRACES_SAMPLER_ARG)
  return {
    url,
    serviceName: env.OTEL_SERVICE_NAME || resourceAttributes['service.name'] || 'ai-gateway',
    resourceAttributes,
    sampler,
    samplerName: name,
    captureContent: isTrue(env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT),
  }
}

function samplerFromEnv(raw: string | undefined, arg: string | undefined): { sampler: Sampler; name: string } {
  // Required here, not imported: a gateway without tracing never loads the OpenTelemetry SDK (about 20 MB resident).
  const { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, TraceIdRatioBasedSampler } = require('@opentelemetry/sdk-trace') as typeof import('@opentelemetry/sdk-trace')
  const name = (raw || 'parentbased_always_on').trim().toLowerCase()
  const ratio = () => {
    const value = arg === undefined || arg === '' ? 1 : Number(arg)
    if (!Number.isFinite(value) || value < 0 || value > 1) throw new TracingConfigError(`OTEL_TRACES_SAMPLER_ARG: expected a ratio between 0 and 1, got '${arg}'`)
    return new TraceIdRatioBasedSampler(value)
  }
  switch (name) {
    case 'always_on':
      return { sampler: new AlwaysOnSampler(), name }
    case 'always_off':
      return { sampler: new AlwaysOffSampler(), name }
    case 'traceidratio':
      return { sampler: ratio(), name }
    case 'parentbased_always_on':
      return { sampler: new ParentBasedSampler({ root: new AlwaysOnSampler() }), name }
    case 'parentbased_always_off':
      return { sampler: new ParentBasedSampler({ root: new AlwaysOffSampler() }), name }
    case 'parentbased_traceidratio':
      return { sampler: new ParentBasedSampler({ root: ratio() }), name }
    default:
      throw new TracingConfigError(
        `OTEL_TRACES_SAMPLER: unsupported sampler '${name}' (always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off, parentbased_traceidratio)`,
      )
  }
}

/** `key1=value1,key2=value2`, values percent-encoded. */
function parseResourceAttributes(raw: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const pair of raw.split(',')) {
    const eq = pair.indexOf('=')
    if (eq <= 0) continue
    try {
      out[decodeURIComponent(pair.slice(0, eq).trim())] = decodeURIComponent(pair.slice(eq + 1).trim())
    } catch {
      // a malformed pair is skipped, as the specification asks
    }
  }
  return out
}

function isTrue(value: string | undefined): boolean {
  return (value ?? '').trim().toLowerCase() === 'true'
}

/**
 * @module JSON-RPC 2.0 messages as MCP's Streamable HTTP transport carries them: reading one POSTed message
 * (a request, a notification, or a client's answer to a request the gateway relayed to it), and writing answers.
 */
import { mcpErrors, RPC, type McpRequestError, type RpcErrorObject } from './errors.ts'
import type { RelayedAnswer } from './upstream/call-relay.ts'

export type JsonRpcId = string | number

export type IncomingMessage =
  | { kind: 'request'; id: JsonRpcId; method: string; params: Record<string, unknown> }
  | { kind: 'notification'; method: string; params: Record<string, unknown> }
  | { kind: 'response'; id: unknown; answer: RelayedAnswer }

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

export function readMessage(value: unknown): IncomingMessage | McpRequestError {
  if (Array.isArray(value)) return mcpErrors.batchNotSupported()
  if (!isObject(value) || value.jsonrpc !== '2.0') return mcpErrors.invalidMessage('Invalid Request: expected a JSON-RPC 2.0 message (an object with "jsonrpc": "2.0").')
  const params = value.params === undefined ? {} : value.params
  if (!isObject(params)) return mcpErrors.invalidMessage('Invalid Request: "params" must be an object.')
  if (typeof value.method === 'string') {
    if (value.method.length === 0 || value.method.length > 200) return mcpErrors.invalidMessage('Invalid Request: "method" must be a name of 1 to 200 characters.')
    if (!('id' in value)) return { kind: 'notification', method: value.method, params }
    const id = value.id
    if ((typeof id !== 'string' || id.length > 200) && (typeof id !== 'number' || !Number.isSafeInteger(id))) {
      return mcpErrors.invalidMessage('Invalid Request: "id" must be a string (at most 200 characters) or an integer.')
    }
    return { kind: 'request', id, method: value.method, params }
  }
  if (isObject(value.result)) return { kind: 'response', id: value.id, answer: { result: value.result } }
  if (isObject(value.error)) {
    const e = value.error
    const error = { code: typeof e.code === 'number' ? e.code : RPC.internalError, message: typeof e.message === 'string' ? e.message.slice(0, 2000) : '', data: e.data }
    return { kind: 'response', id: value.id, answer: { error } }
  }
  if ('result' in value) return mcpErrors.invalidMessage('Invalid Request: "result" must be an object.')
  return mcpErrors.invalidMessage('Invalid Request: expected "method" (a request or notification) or "result"/"error" (a response).')
}

/** A response whose result is already JSON text (a cached listing): spliced, not serialised again. */
export function resultJson(id: JsonRpcId, resultJsonText: string): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${resultJsonText}}`
}

export function errorJson(id: JsonRpcId | null, error: RpcErrorObject): string {
  return JSON.stringify({ jsonrpc: '2.0', id, error })
}

export function notificationJson(method: string, params?: Record<string, unknown>): string {
  return JSON.stringify(params ? { jsonrpc: '2.0', method, params } : { jsonrpc: '2.0', method })
}

/**
 * @module Chat Completions answer → Responses API objects: the Response document, its output items and usage.
 * Shared by the non-stream translation and the stream translator (which emits the same items incrementally).
 */
import { clientToolName, type ClientToolName, type ToolNames } from './tools.ts'

type Json = Record<string, unknown>

export function newId(prefix: string): string {
  return `${prefix}_${crypto.randomUUID().replaceAll('-', '')}`
}

export function responsesUsage(usage: unknown): Json | null {
  if (typeof usage !== 'object' || usage === null) return null
  const u = usage as Json
  const prompt = Number(u.prompt_tokens ?? 0)
  const completion = Number(u.completion_tokens ?? 0)
  const pd = (u.prompt_tokens_details ?? {}) as Json
  const cd = (u.completion_tokens_details ?? {}) as Json
  return {
    input_tokens: prompt,
    input_tokens_details: { cached_tokens: Number(pd.cached_tokens ?? 0), cache_write_tokens: Number(pd.cache_write_tokens ?? 0) },
    output_tokens: completion,
    output_tokens_details: { reasoning_tokens: Number(cd.reasoning_tokens ?? 0) },
    total_tokens: Number(u.total_tokens ?? prompt + completion),
  }
}

/** Status and incomplete details from a chat finish reason. */
export function completionStatus(finishReason: unknown): { status: 'completed' | 'incomplete'; incomplete_details: Json | null } {
  if (finishReason === 'length') return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } }
  if (finishReason === 'content_filter') return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } }
  return { status: 'completed', incomplete_details: null }
}

export function messageItem(id: string, text: string, refusal: string | null, status = 'completed'): Json {
  const content: Json[] = []
  if (text) content.push({ type: 'output_text', text, annotations: [], logprobs: [] })
  if (refusal) content.push({ type: 'refusal', refusal })
  return { type: 'message', id, status, role: 'assistant', content }
}

/** A chat tool call as the client's item, under the client's own name (and namespace, for namespaced tools). */
export function toolCallItem(call: { id: string; name: string; arguments: string }, tool: ClientToolName, status = 'completed'): Json {
  const namespace = tool.namespace ? { namespace: tool.namespace } : {}
  if (tool.custom) {
    let input = call.arguments
    try {
      const parsed = JSON.parse(call.arguments)
      if (typeof parsed?.input === 'string') input = parsed.input
    } catch {
      // the model sent raw text; keep it
    }
    return { type: 'custom_tool_call', id: newId('ctc'), call_id: call.id, name: tool.name, ...namespace, input, status }
  }
  return { type: 'function_call', id: newId('fc'), call_id: call.id, name: tool.name, ...namespace, arguments: call.arguments, status }
}

/** The request fields a Response document echoes back. */
export function responseEnvelope(request: Json, id: string, model: string, createdAt: number): Json {
  const text = typeof request.text === 'object' && request.text !== null ? request.text : { format: { type: 'text' } }
  const reasoning = (request.reasoning ?? {}) as Json
  return {
    id,
    object: 'response',
    created_at: createdAt,
    status: 'in_progress',
    error: null,
    incomplete_details: null,
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    model,
    output: [],
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    previous_response_id: request.previous_response_id ?? null,
    reasoning: { effort: reasoning.effort ?? null, summary: reasoning.summary ?? null },
    store: request.store ?? true,
    temperature: request.temperature ?? 1,
    text,
    tool_choice: request.tool_choice ?? 'auto',
    tools: request.tools ?? [],
    top_p: request.top_p ?? 1,
    truncation: request.truncation ?? 'disabled',
    usage: null,
    user: request.user ?? null,
    metadata: request.metadata ?? {},
  }
}

/** `model` follows the gateway's one rule: the upstream's model id as reported, else the target's model id. */
export function chatCompletionToResponse(completion: Json, request: Json, toolNames: ToolNames, targetModel = ''): Json {
  const choice = (Array.isArray(completion.choices) ? completion.choices[0] : undefined) as Json | undefined
  const message = (choice?.message ?? {}) as Json
  const created = typeof completion.created === 'number' ? completion.created : Math.floor(Date.now() / 1000)
  const response = responseEnvelope(request, newId('resp'), String(completion.model ?? '') || targetModel || String(request.model ?? ''), created)
  const output: Json[] = []
  const reasoning = message.reasoning_content ?? message.reasoning
  if (typeof reasoning === 'string' && reasoning) {
    output.push({ type: 'reasoning', id: newId('rs'), summary: [], content: [{ type: 'reasoning_text', text: reasoning }], status: 'completed' })
  }
  const text = typeof message.content === 'string' ? message.content : ''
  const refusal = typeof message.refusal === 'string' ? message.refusal : null
  if (text || refusal) output.push(messageItem(newId('msg'), text, refusal))
  for (const call of (Array.isArray(message.tool_calls) ? message.tool_calls : []) as Json[]) {
    const fn = (call.function ?? {}) as Json
    const name = String(fn.name ?? '')
    output.push(toolCallItem({ id: String(call.id ?? newId('call')), name, arguments: String(fn.arguments ?? '') }, clientToolName(name, toolNames)))
  }
  const { status, incomplete_details } = completionStatus(choice?.finish_reason)
  return { ...response, status, incomplete_details, completed_at: status === 'completed' ? Math.floor(Date.now() / 1000) : null, output, usage: responsesUsage(completion.usage) }
}

/**
 * @module The `agent` model of the mock upstreams: one tool call, then an answer that quotes the tool's result,
 * so a real agent CLI can run a whole tool-using task against a mock. The prompt scripts the call:
 * `call tool <name> <json arguments>`; the tool must be among the request's tools (a flattened namespaced name
 * `<namespace>__<name>` counts). Once the conversation holds a tool result the answer is `Tool said: <result>`.
 * `reply with <word>` answers the word, without tools.
 * Each mock reads its own wire format into a `Conversation` and writes the `Turn` back in it.
 */

export const AGENT_MODEL = 'agent'
export const AGENT_ANSWER_PREFIX = 'Tool said: '

export interface Conversation {
  /** Every user-visible text of the request (prompts, system reminders). */
  texts: string[]
  /** Names of the tools the request offers. */
  tools: string[]
  /** Text of the last tool result, when there is one. */
  toolResult?: string
}

export type Turn = { kind: 'call'; name: string; arguments: string } | { kind: 'text'; text: string }

const TRIGGER = /call tool (\S+) (\{.*\})/
const REPLY = /reply with (\S+)/

export function scriptedTurn(conversation: Conversation): Turn {
  if (conversation.toolResult !== undefined) return { kind: 'text', text: `${AGENT_ANSWER_PREFIX}${conversation.toolResult.trim()}` }
  for (const text of conversation.texts) {
    const reply = REPLY.exec(text)
    if (reply) return { kind: 'text', text: reply[1]! }
    const match = TRIGGER.exec(text)
    if (!match) continue
    const [, wanted, args] = match as unknown as [string, string, string]
    const name = conversation.tools.find((t) => t === wanted || t.endsWith(`__${wanted}`))
    if (!name) return { kind: 'text', text: `No tool named ${wanted} among: ${conversation.tools.join(', ')}` }
    return { kind: 'call', name, arguments: args }
  }
  return { kind: 'text', text: 'Nothing to do.' }
}

/** Text of a tool result in any of the formats: a string, text parts/blocks, or an object. */
export function resultText(content: unknown): string {
  if (typeof content === 'string') return content
  if (Array.isArray(content)) return content.map((p) => (typeof p === 'string' ? p : typeof p?.text === 'string' ? p.text : '')).join('')
  return JSON.stringify(content ?? '')
}

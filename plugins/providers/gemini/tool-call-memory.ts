/**
 * @module Gemini function calls carry no id, and Gemini 3 rejects a follow-up turn whose function call lost its
 * `thoughtSignature`. The gateway makes an id for every call and remembers `id → {name, signature}` so a later
 * `tool` message (which has only `tool_call_id`) and an assistant turn replayed without the signature can be
 * completed. Bounded: the oldest entries go first. The same facts also travel in the answer itself (the tool
 * call's name and `extra_content.google.thought_signature`), which is what a replica without this memory uses.
 */
export interface RememberedToolCall {
  name: string
  signature?: string
}

export class ToolCallMemory {
  private readonly calls = new Map<string, RememberedToolCall>()

  constructor(private readonly capacity = 50_000) {}

  remember(id: string, call: RememberedToolCall): void {
    if (this.calls.size >= this.capacity) this.calls.delete(this.calls.keys().next().value!)
    this.calls.set(id, call)
  }

  recall(id: string): RememberedToolCall | undefined {
    return this.calls.get(id)
  }
}

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/** `call_` and 24 random characters, the shape OpenAI clients expect. */
export function newToolCallId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24))
  let id = 'call_'
  for (const b of bytes) id += ID_ALPHABET[b % ID_ALPHABET.length]
  return id
}

export const toolCallMemory = new ToolCallMemory()

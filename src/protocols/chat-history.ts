/**
 * @module A chat request's conversation read the way providers that are not chat-shaped take one (Anthropic
 * Messages, Gemini generateContent): the system and developer messages' text apart, the rest as turns that
 * alternate between the user and the assistant. Consecutive messages of one side are merged into one turn; tool
 * results sit on the user's side, ahead of what the user wrote in that turn (both providers want a tool result
 * right after the call it answers). What a message becomes inside a turn is the provider's business.
 */
import { contentText } from './content-text.ts'

type Json = Record<string, unknown>

export interface Turn<Part> {
  role: 'user' | 'assistant'
  parts: Part[]
}

/** The provider's parts for each kind of message; an empty list adds nothing. */
export interface TurnParts<Part> {
  user(message: Json): Part[]
  assistant(message: Json): Part[]
  tool(message: Json): Part[]
}

export function alternatingTurns<Part>(messages: unknown, partsOf: TurnParts<Part>): { system: string[]; turns: Turn<Part>[] } {
  const system: string[] = []
  const turns: Turn<Part>[] = []
  let leadingToolResults = 0 // of the last turn
  const add = (role: Turn<Part>['role'], parts: Part[], toolResults: boolean) => {
    if (parts.length === 0) return
    const last = turns.at(-1)
    if (last?.role !== role) {
      turns.push({ role, parts })
      leadingToolResults = toolResults ? parts.length : 0
    } else if (toolResults) {
      last.parts.splice(leadingToolResults, 0, ...parts)
      leadingToolResults += parts.length
    } else last.parts.push(...parts)
  }
  for (const m of (Array.isArray(messages) ? messages : []) as Json[]) {
    switch (m?.role) {
      case 'system':
      case 'developer':
        system.push(contentText(m.content))
        break
      case 'user':
        add('user', partsOf.user(m), false)
        break
      case 'assistant':
        add('assistant', partsOf.assistant(m), false)
        break
      case 'tool':
        add('user', partsOf.tool(m), true)
        break
    }
  }
  return { system, turns }
}

/** A part of a user message that such providers can carry: text, media by URL (a link or a data URL), or audio. */
export type UserContentPart = { kind: 'text'; text: string } | { kind: 'media'; url: string } | { kind: 'audio'; data: string; format: string }

/** A user message's content as parts; what none of these providers reads (files by id, unknown parts) is left out. */
export function userContentParts(content: unknown): UserContentPart[] {
  if (typeof content === 'string') return content ? [{ kind: 'text', text: content }] : []
  if (!Array.isArray(content)) return []
  const parts: UserContentPart[] = []
  for (const part of content as Json[]) {
    if (part?.type === 'text' && typeof part.text === 'string') parts.push({ kind: 'text', text: part.text })
    else if (part?.type === 'image_url') {
      const url = typeof part.image_url === 'string' ? part.image_url : (part.image_url as Json | undefined)?.url
      if (typeof url === 'string') parts.push({ kind: 'media', url })
    } else if (part?.type === 'file') {
      const fileData = (part.file as Json | undefined)?.file_data
      if (typeof fileData === 'string' && fileData.startsWith('data:')) parts.push({ kind: 'media', url: fileData })
    } else if (part?.type === 'input_audio') {
      const audio = (part.input_audio ?? {}) as Json
      if (typeof audio.data === 'string') parts.push({ kind: 'audio', data: audio.data, format: String(audio.format ?? 'wav') })
    }
  }
  return parts
}

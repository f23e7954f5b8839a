/** @module Reading an OpenAI SDK chat completion stream the way the end-to-end tests check it. */
import type { ChatCompletionStream } from 'openai/lib/ChatCompletionStream'

/** Reads the stream to its end: the text of its deltas, in order, and the completion the SDK folded them into. */
export async function readChatStream(stream: ChatCompletionStream) {
  let text = ''
  for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? ''
  return { text, final: await stream.finalChatCompletion() }
}

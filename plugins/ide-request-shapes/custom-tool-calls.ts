/**
 * @module Custom (free-form) tools are sent upstream as function tools with one `input` string; IDE clients
 * expect the call's `arguments` to be that raw text (e.g. an ApplyPatch patch), so answers are unwrapped here,
 * whole for JSON and per tool call for streams.
 */
import { dataFrame, SseParser } from '../../src/pipeline/sse.ts'

type Json = Record<string, unknown>

export function unwrapInput(args: string): string {
  try {
    const parsed = JSON.parse(args)
    return typeof parsed?.input === 'string' ? parsed.input : args
  } catch {
    return args
  }
}

export function unwrapCompletion(completion: Json, customTools: Set<string>): Json {
  for (const choice of (Array.isArray(completion.choices) ? completion.choices : []) as Json[]) {
    const message = (choice.message ?? {}) as Json
    for (const call of (Array.isArray(message.tool_calls) ? message.tool_calls : []) as Json[]) {
      const fn = call.function as Json | undefined
      if (fn && customTools.has(String(fn.name)) && typeof fn.arguments === 'string') fn.arguments = unwrapInput(fn.arguments)
    }
  }
  return completion
}

/** Holds back the argument fragments of custom tool calls and emits each one's raw input as one fragment. */
export function unwrapStream(body: ReadableStream<Uint8Array>, customTools: Set<string>): ReadableStream<Uint8Array> {
  const parser = new SseParser()
  const held = new Map<number, { args: string; template: Json }>()
  const flushHeld = (controller: TransformStreamDefaultController<Uint8Array>) => {
    for (const [index, { args, template }] of held) {
      const choices = [{ index: 0, delta: { tool_calls: [{ index, function: { arguments: unwrapInput(args) } }] }, logprobs: null, finish_reason: null }]
      controller.enqueue(dataFrame({ ...template, choices }))
    }
    held.clear()
  }
  const forward = (events: ReturnType<SseParser['push']>, controller: TransformStreamDefaultController<Uint8Array>) => {
    for (const event of events) {
      let chunk: Json | undefined
      try {
        chunk = event.data === '[DONE]' ? undefined : JSON.parse(event.data)
      } catch {
        chunk = undefined
      }
      const choice = (Array.isArray(chunk?.choices) ? (chunk!.choices as Json[])[0] : undefined) as Json | undefined
      const delta = (choice?.delta ?? {}) as Json
      if (chunk && Array.isArray(delta.tool_calls)) {
        for (const call of delta.tool_calls as Json[]) {
          const fn = (call.function ?? {}) as Json
          const index = Number(call.index ?? 0)
          if (typeof fn.name === 'string' && customTools.has(fn.name))
            held.set(index, { args: '', template: { id: chunk.id, object: chunk.object, created: chunk.created, model: chunk.model } })
          const slot = held.get(index)
          if (slot && typeof fn.arguments === 'string') {
            slot.args += fn.arguments
            fn.arguments = ''
          }
        }
      }
      if (choice?.finish_reason || event.data === '[DONE]') flushHeld(controller)
      controller.enqueue(dataFrame(chunk ?? event.data))
    }
  }
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform: (bytes, controller) => forward(parser.push(bytes), controller),
      flush: (controller) => {
        forward(parser.end(), controller)
        flushHeld(controller)
      },
    }),
  )
}

/**
 * @module A non-stream upstream answer is parsed once: the upstream call checks that it is JSON and marks the
 * Response it hands on with the parsed value; whoever passes the same body on (the client response) carries the
 * mark, and the pipeline's capture (usage, audit body) and the translators read it instead of parsing the text
 * again. A Response without the mark (rewritten by a plugin, an error body) is parsed as before.
 */

const parsedAnswers = new WeakMap<Response, unknown>()

/** JSON.parse, or undefined for an empty or unreadable text. */
export function parseJsonOrUndefined(text: string): unknown {
  if (!text) return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** A Response of `text`, which parses to `parsed`. */
export function jsonAnswer(text: string, parsed: unknown, init: ResponseInit): Response {
  const response = new Response(text, init)
  parsedAnswers.set(response, parsed)
  return response
}

/** `to` has the same body as `from`: it carries the parsed value along. */
export function sameAnswer(from: Response, to: Response): Response {
  if (parsedAnswers.has(from)) parsedAnswers.set(to, parsedAnswers.get(from))
  return to
}

/** The parsed body of a marked answer; undefined when the Response carries no mark. */
export function parsedAnswer(response: Response): unknown {
  return parsedAnswers.get(response)
}

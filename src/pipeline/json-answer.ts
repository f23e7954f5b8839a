/**
 * @module A non-stream upstream answer is parsed once: the upstream call checks that it is JSON and marks the
 * Response it hands on with the parsed value. A marked Response is made for one request alone: it goes on to the
 * client as it is (its headers made the client's in place, src/providers/call-target.ts), and the pipeline's
 * capture (usage, audit body) and the translators read the mark instead of parsing the text again. A Response
 * without the mark (rewritten by a plugin, an error body) is parsed as before.
 */

/** The text and parsed value an answer was made from. A property of the Response, not a WeakMap entry: two per
 * request in a process-wide WeakMap gave every garbage collection a table of dead entries to clear. */
const ANSWER = Symbol('json answer')

interface Answer {
  text: string
  parsed: unknown
}

type MarkedResponse = Response & { [ANSWER]?: Answer }

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
  const response: MarkedResponse = new Response(text, init)
  response[ANSWER] = { text, parsed }
  return response
}

/** The parsed body of a marked answer; undefined when the Response carries no mark. */
export function parsedAnswer(response: Response): unknown {
  return (response as MarkedResponse)[ANSWER]?.parsed
}

/** The body text of a marked answer (read without going through its body stream); undefined without the mark. */
export function answerText(response: Response): string | undefined {
  return (response as MarkedResponse)[ANSWER]?.text
}

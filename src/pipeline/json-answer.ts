/**
 * @module A non-stream upstream answer is parsed once: the upstream call checks that it is JSON and marks the
 * Response it hands on with the parsed value; whoever passes the same body on (the client response) carries the
 * mark, and the pipeline's capture (usage, audit body) and the translators read it instead of parsing the text
 * again. A Response without the mark (rewritten by a plugin, an error body) is parsed as before.
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

/** `to` has the same body as `from`: it carries the parsed value along. */
export function sameAnswer(from: Response, to: Response): Response {
  const answer = (from as MarkedResponse)[ANSWER]
  if (answer) (to as MarkedResponse)[ANSWER] = answer
  return to
}

/** The parsed body of a marked answer; undefined when the Response carries no mark. */
export function parsedAnswer(response: Response): unknown {
  return (response as MarkedResponse)[ANSWER]?.parsed
}

/** The body text of a marked answer (read without going through its body stream); undefined without the mark. */
export function answerText(response: Response): string | undefined {
  return (response as MarkedResponse)[ANSWER]?.text
}

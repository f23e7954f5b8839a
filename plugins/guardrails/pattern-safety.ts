/**
 * @module A check on the operator's `pattern` regexes when a workflow is saved: a repeated group that itself holds
 * an unbounded quantifier (`(a+)+`, `(\w+\s?)*`, `(?:x|y*){2,}`) backtracks exponentially on a text that almost
 * matches, and the text is the client's. Such patterns are refused. It is not a proof of linear time (overlapping
 * alternatives such as `(a|a)*`, or `\d+\d+x`, still backtrack); docs/guardrails.md says what to avoid.
 */

interface Group {
  /** Where it opens. */
  start: number
  /** The group holds `*`, `+` or `{n,}` somewhere inside. */
  unbounded: boolean
}

/** `{n}`, `{n,}` or `{n,m}` at `at`: its length and whether it repeats more than once or without bound. */
function braceQuantifier(source: string, at: number): { length: number; repeats: boolean; unbounded: boolean } | undefined {
  const match = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(at, at + 24))
  if (!match) return undefined
  const unbounded = match[2] !== undefined && match[3] === ''
  const max = unbounded ? Infinity : Number(match[3] ?? match[1])
  return { length: match[0].length, repeats: max > 1, unbounded }
}

/** A description of the first repeated group holding an unbounded quantifier in `source`, or undefined. */
export function nestedQuantifier(source: string): string | undefined {
  const stack: Group[] = [{ start: 0, unbounded: false }]
  /** The atom a quantifier would apply to: a group (with what it holds) or a single character or class. */
  let last: { group?: Group; start: number } | undefined
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!
    if (c === '\\') {
      last = { start: i }
      i++
    } else if (c === '[') {
      const start = i
      for (i++; i < source.length && source[i] !== ']'; i++) if (source[i] === '\\') i++
      last = { start }
    } else if (c === '(') {
      stack.push({ start: i, unbounded: false })
      // `(?:`, `(?=`, `(?!`, `(?<=`, `(?<!`, `(?<name>`: the `?` is not a quantifier.
      if (source[i + 1] === '?') i += source[i + 2] === '<' && source[i + 3] !== '=' && source[i + 3] !== '!' ? source.indexOf('>', i) - i : source[i + 2] === '<' ? 3 : 2
      last = undefined
    } else if (c === ')') {
      const group = stack.length > 1 ? stack.pop()! : { start: i, unbounded: false }
      if (group.unbounded) stack.at(-1)!.unbounded = true
      last = { group, start: group.start }
    } else if (c === '*' || c === '+' || c === '?' || c === '{') {
      const brace = c === '{' ? braceQuantifier(source, i) : undefined
      if (c === '{' && !brace) {
        last = { start: i }
        continue
      }
      const repeats = c !== '?' && (brace?.repeats ?? true)
      const unbounded = c === '*' || c === '+' || (brace?.unbounded ?? false)
      if (repeats && last?.group?.unbounded) return `a repeated group that holds its own unbounded quantifier, at character ${last.start + 1}`
      if (unbounded) stack.at(-1)!.unbounded = true
      if (brace) i += brace.length - 1
      if (source[i + 1] === '?') i++
      last = undefined
    } else {
      last = { start: i }
    }
  }
  return undefined
}

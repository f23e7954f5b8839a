/** SQL files imported with `with { type: 'text' }` (embedded migrations): their text. */
declare module '*.sql' {
  const text: string
  export default text
}

/** Data files imported with `with { type: 'file' }` (embedded by `bun build --compile`): their path. */
declare module '*.tiktoken' {
  const path: string
  export default path
}

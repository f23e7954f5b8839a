/** SQL files imported with `with { type: 'text' }` (embedded migrations): their text. */
declare module '*.sql' {
  const text: string
  export default text
}

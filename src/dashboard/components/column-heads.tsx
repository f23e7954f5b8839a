/** @jsxImportSource preact */
/** @module A table's header row: one column header per name; children add more (an "Actions" header, say). */
import type { ComponentChildren } from 'preact'

export function ColumnHeads({ names, children }: { names: readonly string[]; children?: ComponentChildren }) {
  return (
    <thead>
      <tr>
        {names.map((name) => (
          <th scope="col" key={name}>
            {name}
          </th>
        ))}
        {children}
      </tr>
    </thead>
  )
}

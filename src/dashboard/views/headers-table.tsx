/** @jsxImportSource preact */
/** @module HTTP headers as a two-column table (credentials arrive already redacted). */
export function HeadersTable({ headers }: { headers: Record<string, string> }) {
  const names = Object.keys(headers).sort()
  return (
    <div class="table-scroll">
      <table class="headers-table">
        <tbody>
          {names.map((name) => (
            <tr key={name}>
              <th scope="row">
                <code>{name}</code>
              </th>
              <td>
                <code>{headers[name]}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

/** @jsxImportSource preact */
/** @module A JSON document (or text) pretty-printed in a collapsible section, with a copy button. */
import { prettyJson } from '../format.ts'
import { CopyButton } from './copy-button.tsx'

export function JsonBlock({ title, value, open = true }: { title: string; value: unknown; open?: boolean }) {
  const text = prettyJson(value)
  return (
    <details open={open} class="json-block">
      <summary>{title}</summary>
      <CopyButton text={text} label="Copy" />
      <pre>
        <code>{text}</code>
      </pre>
    </details>
  )
}

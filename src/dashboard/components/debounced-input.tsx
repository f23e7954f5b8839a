/** @jsxImportSource preact */
/** @module A search-type input that reports its value once typing pauses (or on Enter), not on every keystroke. */
import { useEffect, useState } from 'preact/hooks'

interface DebouncedInputProps {
  value: string
  onCommit: (value: string) => void
  placeholder?: string
  label?: string
  numeric?: boolean
  delayMs?: number
}

export function DebouncedInput({ value, onCommit, placeholder, label, numeric, delayMs = 350 }: DebouncedInputProps) {
  const [text, setText] = useState(value)
  useEffect(() => setText(value), [value])
  useEffect(() => {
    if (text === value) return
    const timer = setTimeout(() => onCommit(text), delayMs)
    return () => clearTimeout(timer)
  }, [text, value])
  return (
    <input
      type="search"
      placeholder={placeholder}
      aria-label={label}
      inputMode={numeric ? 'numeric' : undefined}
      value={text}
      onInput={(event) => setText(event.currentTarget.value)}
      onKeyDown={(event) => {
        if (event.key === 'Enter' && text !== value) onCommit(text)
      }}
    />
  )
}

/** @jsxImportSource preact */
/** @module Copies text to the clipboard and says whether it worked (the Clipboard API needs HTTPS or localhost). */
import { useEffect, useState } from 'preact/hooks'

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [result, setResult] = useState<'copied' | 'failed'>()
  useEffect(() => {
    if (!result) return
    const timer = setTimeout(() => setResult(undefined), 2000)
    return () => clearTimeout(timer)
  }, [result])
  async function copy() {
    try {
      await navigator.clipboard.writeText(text)
      setResult('copied')
    } catch {
      setResult('failed')
    }
  }
  return (
    <button type="button" class="secondary outline compact" onClick={copy}>
      <span aria-live="polite">{result === 'copied' ? 'Copied' : result === 'failed' ? 'Copy failed: select the text' : label}</span>
    </button>
  )
}

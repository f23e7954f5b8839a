/** @jsxImportSource preact */
/** @module "Are you sure?" for changes that cannot be undone; the confirm button shows progress and errors. */
import type { ComponentChildren } from 'preact'
import { useState } from 'preact/hooks'
import { ModalDialog } from './modal-dialog.tsx'
import { ErrorNotice } from './status.tsx'

interface ConfirmDialogProps {
  title: string
  confirmLabel: string
  onConfirm: () => Promise<void>
  onClose: () => void
  children: ComponentChildren
}

export function ConfirmDialog({ title, confirmLabel, onConfirm, onClose, children }: ConfirmDialogProps) {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<Error>()
  async function confirm() {
    setBusy(true)
    setError(undefined)
    try {
      await onConfirm()
    } catch (failure) {
      setError(failure as Error)
      setBusy(false)
    }
  }
  return (
    <ModalDialog title={title} onClose={onClose}>
      {children}
      {error && <ErrorNotice error={error} />}
      <footer>
        <button type="button" class="secondary" onClick={onClose} autofocus>
          Cancel
        </button>
        <button type="button" class="danger" onClick={confirm} aria-busy={busy} disabled={busy}>
          {confirmLabel}
        </button>
      </footer>
    </ModalDialog>
  )
}

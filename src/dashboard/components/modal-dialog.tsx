/** @jsxImportSource preact */
/**
 * @module A modal `<dialog>`: opened with showModal() (focus moves in and stays in, the page behind is inert),
 * Escape and the close button call `onClose`. Mounted = open; the parent unmounts it to close.
 */
import type { ComponentChildren } from 'preact'
import { useEffect, useId, useRef } from 'preact/hooks'

export function ModalDialog({ title, onClose, children }: { title: string; onClose: () => void; children: ComponentChildren }) {
  const dialog = useRef<HTMLDialogElement>(null)
  const titleId = useId()
  useEffect(() => {
    dialog.current?.showModal()
  }, [])
  return (
    <dialog
      ref={dialog}
      aria-labelledby={titleId}
      onCancel={(event) => {
        // Escape: let the parent unmount the dialog instead of the browser closing it behind the parent's back.
        event.preventDefault()
        onClose()
      }}
    >
      <article>
        <header>
          <button type="button" aria-label="Close" class="close" onClick={onClose} />
          <h2 id={titleId}>{title}</h2>
        </header>
        {children}
      </article>
    </dialog>
  )
}

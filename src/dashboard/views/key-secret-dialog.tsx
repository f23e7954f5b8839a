/** @jsxImportSource preact */
/** @module The new key's secret, shown this one time (the gateway keeps only its hash). */
import { ModalDialog } from '../components/modal-dialog.tsx'
import { CopyButton } from '../components/copy-button.tsx'
import type { CreatedKey } from './key-form-dialog.tsx'

export function KeySecretDialog({ created, onClose }: { created: CreatedKey; onClose: () => void }) {
  return (
    <ModalDialog title="API key created" onClose={onClose}>
      <p>
        Copy the secret of <strong>{created.name}</strong> now. It is shown only this once: the gateway keeps only its hash.
      </p>
      <label>
        Secret key
        <input readOnly value={created.key} class="secret" onFocus={(event) => event.currentTarget.select()} />
      </label>
      <footer>
        <CopyButton text={created.key} label="Copy key" />
        <button type="button" onClick={onClose} autofocus>
          Done
        </button>
      </footer>
    </ModalDialog>
  )
}

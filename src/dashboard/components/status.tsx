/** @jsxImportSource preact */
/** @module Loading, empty and error states, and `Loadable`, which picks the right one for a Remote. */
import type { ComponentChildren } from 'preact'
import type { Remote } from './use-remote.ts'

export function Loading({ label }: { label: string }) {
  return (
    <p aria-busy="true" class="status-loading">
      {label}
    </p>
  )
}

export function EmptyState({ children }: { children: ComponentChildren }) {
  return <p class="status-empty">{children}</p>
}

export function ErrorNotice({ error, onRetry }: { error: Error; onRetry?: () => void }) {
  return (
    <div role="alert" class="status-error">
      <span>{error.message}</span>
      {onRetry && (
        <button type="button" class="secondary outline" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  )
}

/** The data when there is some (with an error above it if a reload failed), else the error, else a spinner. */
export function Loadable<T>({ remote, label, children }: { remote: Remote<T>; label: string; children: (data: T) => ComponentChildren }) {
  if (remote.data !== undefined)
    return (
      <>
        {remote.error && <ErrorNotice error={remote.error} onRetry={remote.reload} />}
        {children(remote.data)}
      </>
    )
  if (remote.error) return <ErrorNotice error={remote.error} onRetry={remote.reload} />
  return <Loading label={label} />
}

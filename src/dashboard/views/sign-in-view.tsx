/** @jsxImportSource preact */
/** @module Sign-in with the master key or a dashboard-enabled managed key, or through the identity provider when the gateway has one (docs/sso.md). */
import { useState } from 'preact/hooks'
import type { ApiError } from '../api/admin-client.ts'
import { SSO_LOGIN, signIn, signInProblem, type Session } from '../api/session.ts'

export function SignInView({ notice, sso, onSignedIn }: { notice?: string; sso: boolean; onSignedIn: (session: Session) => void }) {
  const [key, setKey] = useState('')
  const [busy, setBusy] = useState(false)
  const [problem, setProblem] = useState<string>()

  async function submit(event: Event) {
    event.preventDefault()
    setBusy(true)
    setProblem(undefined)
    try {
      onSignedIn(await signIn(key.trim()))
    } catch (error) {
      setProblem(signInProblem(error as ApiError))
      setBusy(false)
    }
  }

  return (
    <main class="container sign-in">
      <article>
        <header>
          <h1>AI Gateway</h1>
          <p>Sign in with the master key or a managed API key that has dashboard access.</p>
        </header>
        {notice && !problem && (
          <p role="status" class="notice">
            {notice}
          </p>
        )}
        {sso && (
          <p>
            <a href={SSO_LOGIN} role="button" class="sso-sign-in">
              Sign in with your company account
            </a>
          </p>
        )}
        <form onSubmit={submit}>
          <label>
            Admin key
            <input
              type="password"
              name="key"
              autocomplete="current-password"
              required
              autofocus
              value={key}
              onInput={(event) => setKey(event.currentTarget.value)}
              aria-invalid={problem ? true : undefined}
              aria-describedby={problem ? 'sign-in-problem' : undefined}
            />
          </label>
          {problem && (
            <p id="sign-in-problem" role="alert" class="field-error">
              {problem}
            </p>
          )}
          <button type="submit" aria-busy={busy} disabled={busy}>
            Sign in
          </button>
        </form>
        <footer>
          <small>A key stays in this tab until you sign out or close it.</small>
        </footer>
      </article>
    </main>
  )
}

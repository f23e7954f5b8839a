/** @jsxImportSource preact */
/**
 * @module The app shell: restores or asks for a session (a key in this tab, or the identity provider's session
 * cookie), then shows the view the URL names. Any 401 from the admin API (the key was revoked or expired, the
 * session ended) ends the session and returns to sign-in; a session due for renewal goes back through the
 * identity provider, which answers at once while its own session lasts.
 */
import { useEffect, useMemo, useState } from 'preact/hooks'
import { adminClient, type ApiError } from './api/admin-client.ts'
import { AdminContext, PrincipalContext } from './api/admin-context.ts'
import { forgetSessionKey, resumeSession, SSO_LOGIN, signInProblem, ssoSignOut, ssoState, storedSessionKey, type Session } from './api/session.ts'
import { NavBar, VIEWS, type ViewId } from './components/nav-bar.tsx'
import { Loading } from './components/status.tsx'
import { useRoute, type Route } from './router.ts'
import { AuditEntryView } from './views/audit-entry-view.tsx'
import { AuditLogView } from './views/audit-log-view.tsx'
import { KeysView } from './views/keys-view.tsx'
import { McpView } from './views/mcp-view.tsx'
import { BatchesView } from './views/batches-view.tsx'
import { FilesView } from './views/files-view.tsx'
import { SignInView } from './views/sign-in-view.tsx'
import { UsageView } from './views/usage-view.tsx'
import { WorkflowsView } from './views/workflows-view.tsx'

const DEFAULT_VIEW: ViewId = 'audit'

export function App() {
  const [session, setSession] = useState<Session>()
  const [resuming, setResuming] = useState(true)
  const [ssoAvailable, setSsoAvailable] = useState(false)
  const [notice, setNotice] = useState<string>()
  const route = useRoute()

  function signOut(message?: string) {
    const credential = session?.credential
    forgetSessionKey()
    setSession(undefined)
    setNotice(message)
    if (credential && 'csrf' in credential && !message) {
      // The provider's own sign-out too, when it has one.
      void ssoSignOut(credential.csrf).then((endSession) => endSession && window.location.assign(endSession))
    }
  }

  useEffect(() => {
    const key = storedSessionKey()
    const resumed = key
      ? resumeSession(key).then(setSession, (error: ApiError) => {
          if (error.status === 401 || error.status === 403) forgetSessionKey()
          setNotice(signInProblem(error))
        })
      : ssoState().then(
          (state) => {
            if (state.kind === 'signed-in') setSession(state.session)
            else if (state.kind === 'available' && state.refresh) renewSsoSession()
            else setSsoAvailable(state.kind === 'available')
          },
          (error: ApiError) => setNotice(error.message),
        )
    resumed.finally(() => setResuming(false))
  }, [])

  const client = useMemo(
    () =>
      session &&
      adminClient(session.credential, (error) => {
        if (error.code === 'session_refresh_required') return renewSsoSession()
        signOut('key' in session.credential ? 'Your key is no longer accepted. Sign in again.' : 'Your session has ended. Sign in again.')
      }),
    [session],
  )

  if (resuming) return <Loading label="Checking your session…" />
  if (!session || !client)
    return (
      <SignInView
        sso={ssoAvailable}
        notice={notice}
        onSignedIn={(signedIn) => {
          setNotice(undefined)
          setSession(signedIn)
        }}
      />
    )

  const view = VIEWS.find((v) => v.id === route.path[0])?.id ?? DEFAULT_VIEW
  return (
    <AdminContext.Provider value={client}>
      <PrincipalContext.Provider value={session.principal}>
        <NavBar current={view} principal={session.principal} onSignOut={() => signOut()} />
        <main class="container">{viewFor(view, route)}</main>
      </PrincipalContext.Provider>
    </AdminContext.Provider>
  )
}

/** Back through the identity provider for a fresh ID token (the role is mapped again), then back here. */
function renewSsoSession() {
  window.location.assign(`${SSO_LOGIN}?return_to=${encodeURIComponent(window.location.pathname + window.location.search + window.location.hash)}`)
}

function viewFor(view: ViewId, route: Route) {
  switch (view) {
    case 'keys':
      return <KeysView />
    case 'audit': {
      const [, id, tab] = route.path
      return id ? <AuditEntryView key={id} id={id} tab={tab === 'conversation' ? 'conversation' : 'details'} /> : <AuditLogView query={route.query} />
    }
    case 'usage':
      return <UsageView query={route.query} />
    case 'workflows':
      return <WorkflowsView />
    case 'mcp':
      return <McpView server={route.path[1]} />
    case 'batches':
      return <BatchesView key={route.path[1] ?? ''} id={route.path[1]} />
    case 'files':
      return <FilesView />
  }
}

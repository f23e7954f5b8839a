/** @jsxImportSource preact */
/**
 * @module The app shell: restores or asks for a session, then shows the view the URL names. Any 401 from the
 * admin API (the key was revoked or expired meanwhile) ends the session and returns to sign-in.
 */
import { useEffect, useMemo, useState } from 'preact/hooks'
import { adminClient, ApiError } from './api/admin-client.ts'
import { AdminContext, PrincipalContext } from './api/admin-context.ts'
import { forgetSessionKey, resumeSession, signInProblem, storedSessionKey, type Session } from './api/session.ts'
import { NavBar, VIEWS, type ViewId } from './components/nav-bar.tsx'
import { Loading } from './components/status.tsx'
import { useRoute, type Route } from './router.ts'
import { AuditEntryView } from './views/audit-entry-view.tsx'
import { AuditLogView } from './views/audit-log-view.tsx'
import { KeysView } from './views/keys-view.tsx'
import { McpView } from './views/mcp-view.tsx'
import { SignInView } from './views/sign-in-view.tsx'
import { UsageView } from './views/usage-view.tsx'
import { WorkflowsView } from './views/workflows-view.tsx'

const DEFAULT_VIEW: ViewId = 'audit'

export function App() {
  const [session, setSession] = useState<Session>()
  const [resuming, setResuming] = useState(() => storedSessionKey() !== undefined)
  const [notice, setNotice] = useState<string>()
  const route = useRoute()

  function signOut(message?: string) {
    forgetSessionKey()
    setSession(undefined)
    setNotice(message)
  }

  useEffect(() => {
    const key = storedSessionKey()
    if (!key) return
    resumeSession(key)
      .then(setSession, (error: ApiError) => {
        if (error.status === 401 || error.status === 403) forgetSessionKey()
        setNotice(signInProblem(error))
      })
      .finally(() => setResuming(false))
  }, [])

  const client = useMemo(() => session && adminClient(session.key, () => signOut('Your key is no longer accepted. Sign in again.')), [session])

  if (resuming) return <Loading label="Checking your key…" />
  if (!session || !client)
    return (
      <SignInView
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
  }
}

/**
 * @module The signed-in admin client and principal, for every view below the app shell. `useCan` says whether
 * the principal's role offers an action: the views show only what the gateway would allow (the gateway decides).
 */
import { createContext } from 'preact'
import { useContext } from 'preact/hooks'
import type { AdminClient } from './admin-client.ts'
import type { AdminPermission, Principal } from './schemas.ts'

export const AdminContext = createContext<AdminClient | null>(null)
export const PrincipalContext = createContext<Principal | null>(null)

export function useAdmin(): AdminClient {
  const client = useContext(AdminContext)
  if (!client) throw new Error('useAdmin() outside a signed-in session')
  return client
}

export function usePrincipal(): Principal {
  const principal = useContext(PrincipalContext)
  if (!principal) throw new Error('usePrincipal() outside a signed-in session')
  return principal
}

export function useCan(permission: AdminPermission): boolean {
  return usePrincipal().permissions.includes(permission)
}

/** @module The signed-in admin client, for every view below the app shell. */
import { createContext } from 'preact'
import { useContext } from 'preact/hooks'
import type { AdminClient } from './admin-client.ts'

export const AdminContext = createContext<AdminClient | null>(null)

export function useAdmin(): AdminClient {
  const client = useContext(AdminContext)
  if (!client) throw new Error('useAdmin() outside a signed-in session')
  return client
}

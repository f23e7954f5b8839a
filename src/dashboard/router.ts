/**
 * @module Hash routes (`#/audit/<id>?…`), so the one HTML route `/dashboard` serves every view and a reload keeps
 * the view and its filters.
 */
import { useEffect, useState } from 'preact/hooks'

export interface Route {
  path: string[]
  query: URLSearchParams
}

function currentRoute(): Route {
  const hash = location.hash.replace(/^#\/?/, '')
  const at = hash.indexOf('?')
  const path = at < 0 ? hash : hash.slice(0, at)
  return { path: path.split('/').filter(Boolean).map(decodeURIComponent), query: new URLSearchParams(at < 0 ? '' : hash.slice(at + 1)) }
}

export function useRoute(): Route {
  const [route, setRoute] = useState(currentRoute)
  useEffect(() => {
    const update = () => setRoute(currentRoute())
    addEventListener('hashchange', update)
    return () => removeEventListener('hashchange', update)
  }, [])
  return route
}

export function hrefOf(path: string[], query?: URLSearchParams): string {
  const search = query?.toString()
  return `#/${path.map(encodeURIComponent).join('/')}${search ? `?${search}` : ''}`
}

/** `replace` for changes that should not add a Back step (typing in a filter). */
export function navigate(href: string, options: { replace?: boolean } = {}): void {
  if (options.replace) location.replace(href)
  else location.hash = href
}

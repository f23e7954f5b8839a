/**
 * @module Loads data for a view: `loading` until the first answer, then `data` or `error`. A reload keeps the
 * data on screen (live refresh, after a change); new `deps` start from scratch. Late answers of superseded
 * loads are dropped.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks'

export interface Remote<T> {
  data?: T
  error?: Error
  loading: boolean
  reload(): void
}

export function useRemote<T>(load: () => Promise<T>, deps: readonly unknown[]): Remote<T> {
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean }>({ loading: true })
  const latest = useRef(0)
  const run = useCallback((keepData: boolean) => {
    const id = ++latest.current
    setState((s) => ({ loading: true, data: keepData ? s.data : undefined }))
    load().then(
      (data) => id === latest.current && setState({ loading: false, data }),
      (error: Error) => id === latest.current && setState((s) => ({ loading: false, error, data: keepData ? s.data : undefined })),
    )
    // The caller's deps say when `load` changed.
  }, deps)
  useEffect(() => run(false), [run])
  const reload = useCallback(() => run(true), [run])
  return { ...state, reload }
}

/** @jsxImportSource preact */
/**
 * @module Files: the Files API's records of the signed-in principal's subtree, newest first (name, purpose, size,
 * SHA-256, owner, user path, when it expires), filtered by purpose. Read only, and never the bytes: a file's owner
 * reads and deletes it through /v1/files.
 */
import { useState } from 'preact/hooks'
import { useAdmin } from '../api/admin-context.ts'
import { adminFileList, type AdminFile } from '../../files/admin-views.ts'
import { ColumnHeads } from '../components/column-heads.tsx'
import { CursorPager } from '../components/pager.tsx'
import { EmptyState, Loadable } from '../components/status.tsx'
import { useRemote } from '../components/use-remote.ts'
import { formatBytes } from '../format.ts'

const PAGE_SIZE = 25
const PURPOSES = ['', 'batch', 'batch_output', 'user_data', 'assistants', 'fine-tune', 'vision', 'evals']

const when = (epochSeconds: number | null) => (epochSeconds ? new Date(epochSeconds * 1000).toLocaleString() : '')

export function FilesView() {
  const admin = useAdmin()
  const [purpose, setPurpose] = useState('')
  // The pages seen so far: `before` is the last id of the page before.
  const [befores, setBefores] = useState<(string | undefined)[]>([undefined])
  const before = befores.at(-1)
  const files = useRemote(() => admin.get('/files', adminFileList, { limit: PAGE_SIZE, before, purpose: purpose || undefined }), [admin, before, purpose])
  return (
    <section aria-labelledby="files-title">
      <div class="view-header">
        <h1 id="files-title">Files</h1>
        <label>
          Purpose{' '}
          <select
            value={purpose}
            onChange={(e) => {
              setPurpose((e.target as HTMLSelectElement).value)
              setBefores([undefined])
            }}
          >
            {PURPOSES.map((p) => (
              <option key={p} value={p}>
                {p || 'any'}
              </option>
            ))}
          </select>
        </label>
      </div>
      <Loadable remote={files} label="Loading files…">
        {(page) =>
          page.data.length === 0 ? (
            <EmptyState>No files here. A client uploads one with POST /v1/files; batches write their output and error files here too.</EmptyState>
          ) : (
            <>
              <FileTable files={page.data} />
              <CursorPager cursors={befores} onCursors={setBefores} hasMore={page.has_more} lastId={page.data.at(-1)?.id} />
            </>
          )
        }
      </Loadable>
    </section>
  )
}

function FileTable({ files }: { files: AdminFile[] }) {
  return (
    <div class="table-scroll">
      <table class="striped files-table">
        <ColumnHeads names={['File', 'Name', 'Purpose', 'Size', 'SHA-256', 'Owner', 'User path', 'Created', 'Expires']} />
        <tbody>
          {files.map((file) => (
            <tr key={file.id}>
              <td>
                <code>{file.id}</code>
              </td>
              <td>{file.filename}</td>
              <td>
                <span class="badge badge-label">{file.purpose}</span>
              </td>
              <td>{formatBytes(file.bytes)}</td>
              <td title={file.sha256}>
                <code>{file.sha256.slice(0, 12)}…</code>
              </td>
              <td>
                <code>{file.owner}</code>
              </td>
              <td>{file.user_path}</td>
              <td>{when(file.created_at)}</td>
              <td>{file.expires_at === null ? 'never' : when(file.expires_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

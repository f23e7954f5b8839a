/**
 * @module The dashboard's files in memory, so the gateway can serve them with its own headers (a strict CSP, no
 * framing). Bun serves an imported HTML page itself when it is given as a route, and a route Bun serves takes no
 * extra headers (oven-sh/bun#16873), so the page is not handed to Bun that way: the compiled binary carries the
 * bundled files (`HTMLBundle.files`), and from source the same bundler builds them on the first request
 * (about 0.1 s). The page's script and stylesheet move under `/dashboard/assets/`, a path only the dashboard uses.
 */

export const ASSET_PREFIX = '/dashboard/assets/'

export interface DashboardFile {
  body: Uint8Array
  contentType: string
}

export interface DashboardBundle {
  html: string
  /** By file name (`chunk-1k2mxzkj.js`): content-hashed, so they may be cached for good. */
  assets: ReadonlyMap<string, DashboardFile>
}

interface BuiltFile {
  name: string
  isHtml: boolean
  file: DashboardFile
}

export async function loadDashboardBundle(page: Bun.HTMLBundle): Promise<DashboardBundle> {
  const files = page.files ? await embeddedFiles(page.files) : await builtFiles(page.index)
  const html = files.find((f) => f.isHtml)
  if (!html) throw new Error(`the dashboard bundle of ${page.index} has no HTML page`)
  const assets = new Map(files.filter((f) => !f.isHtml).map((f) => [f.name, f.file]))
  return { html: await pointAtAssets(new TextDecoder().decode(html.file.body), assets), assets }
}

async function embeddedFiles(files: NonNullable<Bun.HTMLBundle['files']>): Promise<BuiltFile[]> {
  return Promise.all(
    files.map(async (f) => ({
      name: baseName(f.path),
      isHtml: f.loader === 'html',
      file: { body: await Bun.file(f.path).bytes(), contentType: f.headers['content-type'] },
    })),
  )
}

async function builtFiles(index: string): Promise<BuiltFile[]> {
  const build = await Bun.build({ entrypoints: [index], target: 'browser', minify: true, jsx: { development: false } })
  if (!build.success) throw new AggregateError(build.logs, `the dashboard did not build from ${index}`)
  return Promise.all(
    build.outputs.map(async (o) => ({
      name: baseName(o.path),
      isHtml: o.path.endsWith('.html'),
      file: { body: new Uint8Array(await o.arrayBuffer()), contentType: o.type },
    })),
  )
}

/** The page's `<script src>` and `<link href>` to the bundle's files, rewritten to `/dashboard/assets/<name>`. */
async function pointAtAssets(html: string, assets: ReadonlyMap<string, DashboardFile>): Promise<string> {
  const rewrite = (attribute: string) => ({
    element(element: HTMLRewriterTypes.Element) {
      const value = element.getAttribute(attribute)
      if (value && assets.has(baseName(value))) element.setAttribute(attribute, `${ASSET_PREFIX}${baseName(value)}`)
    },
  })
  return new HTMLRewriter().on('script[src]', rewrite('src')).on('link[href]', rewrite('href')).transform(html)
}

const baseName = (path: string) => path.slice(path.lastIndexOf('/') + 1)

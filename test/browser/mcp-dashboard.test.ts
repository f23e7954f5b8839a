/**
 * The dashboard's MCP page in a real browser (Chromium through playwright-core) against a real gateway with a real
 * MCP server upstream: the server's health, its tools and who may see them, the recent tool calls (opening in Audit
 * Logs), and revoking a connected account. Screenshots go to test-output/dashboard/.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type Browser, type Locator, type Page } from 'playwright-core'
import { startGateway, writeGatewayYaml, type RunningGateway } from '../helpers/gateway.ts'
import { connectMcp } from '../helpers/mcp-client.ts'
import { startMockMcpServer, type MockMcpServer } from '../helpers/mock-mcp-server.ts'

const CHROMIUM = '/usr/bin/chromium'
const MASTER = 'master-key-for-mcp-dashboard-tests-0123'
const SHOTS = join(import.meta.dir, '..', '..', 'test-output', 'dashboard')
const STEP_TIMEOUT_MS = 60_000
const WAIT_MS = 15_000

let gw: RunningGateway
let tools: MockMcpServer
let oauthLike: MockMcpServer
let browser: Browser
let page: Page
const pageErrors: string[] = []

const visible = (locator: Locator) => locator.waitFor({ state: 'visible', timeout: WAIT_MS })

describe.skipIf(!existsSync(CHROMIUM) && !process.env.CI)('the MCP page in Chromium', () => {
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true })
    tools = await startMockMcpServer({ tools: [{ name: 'search' }, { name: 'drop_table' }] })
    oauthLike = await startMockMcpServer({ tools: [{ name: 'whoami' }], bearerToken: 'never-given' })
    gw = await startGateway({
      GATEWAY_MASTER_KEY: MASTER,
      LOGGING_AUDIT_FLUSH_INTERVAL_MS: '5',
      GATEWAY_CONFIG: writeGatewayYaml(`
mcp:
  servers:
    db:
      url: ${tools.url}
      description: The data team's tools
    tickets:
      url: ${oauthLike.url}
      oauth: { per: key }
  visibility:
    - name: no drops for interns
      user_path: /interns
      deny: [db/drop_*]
`),
    })
    await gw.gateway.mcp.catalog.settled()
    const mcp = await connectMcp(gw.url, MASTER)
    await mcp.client.callTool({ name: 'db__search', arguments: { text: 'from the browser test' } })
    await mcp.close()
    await gw.gateway.mcp.credentials.saveTokens(
      'tickets',
      { kind: 'key', id: 'key_someone', userPath: '/interns/sam' },
      { access_token: 'at-secret', token_type: 'Bearer', expires_in: 3600 },
    )
    await gw.gateway.auditLog.writer.flush()
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] })
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    page.on('pageerror', (error) => pageErrors.push(error.message))
  }, STEP_TIMEOUT_MS)

  afterAll(async () => {
    await browser?.close()
    await gw?.stop()
    await Promise.all([tools?.stop(), oauthLike?.stop()])
  })

  test(
    'servers with their health; a server’s tools and who may see each',
    async () => {
      await page.goto(`${gw.url}/dashboard`)
      await page.getByLabel('Admin key').fill(MASTER)
      await page.getByRole('button', { name: 'Sign in' }).click()
      await visible(page.getByRole('heading', { level: 1, name: 'Audit Logs' }))
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'MCP' }).click()
      await visible(page.getByRole('heading', { level: 1, name: 'MCP servers' }))
      const servers = page.getByRole('table', { name: 'MCP servers' })
      await visible(servers.getByRole('row', { name: /db: ready/ }))
      await visible(servers.getByRole('row', { name: /tickets: per_user/ }))
      await servers.getByRole('row', { name: /db: ready/ }).click()
      const toolTable = page.getByRole('table', { name: 'Tools of db' })
      await visible(toolTable)
      const drop = toolTable.getByRole('row', { name: /drop_table/ })
      await visible(drop.getByText('deny'))
      expect(await drop.textContent()).toContain('user path /interns (no drops for interns)')
      expect(await toolTable.getByRole('row', { name: /search/ }).textContent()).toContain('everyone')
      await page.screenshot({ path: join(SHOTS, 'mcp-server.png') })
    },
    STEP_TIMEOUT_MS,
  )

  test(
    'recent tool calls open in Audit Logs',
    async () => {
      const calls = page.getByRole('table', { name: 'Recent tool calls' })
      await visible(calls.getByText('db__search'))
      await calls.getByText('db__search').click()
      await visible(page.getByText('server db · search'))
      expect(page.url()).toContain('#/audit/')
    },
    STEP_TIMEOUT_MS,
  )

  test(
    'a connected account is revoked; no token is ever on the page',
    async () => {
      await page.goto(`${gw.url}/dashboard#/mcp`)
      const accounts = page.getByRole('table', { name: 'Connected accounts' })
      const row = accounts.getByRole('row', { name: /key key_someone/ })
      await visible(row)
      expect(await page.content()).not.toContain('at-secret')
      await row.getByRole('button', { name: 'Revoke' }).click()
      const dialog = page.getByRole('dialog', { name: 'Revoke connected account?' })
      await visible(dialog)
      await dialog.getByRole('button', { name: 'Revoke' }).click()
      await visible(page.getByText('No connected account.'))
      expect(await gw.gateway.mcp.credentials.list({ limit: 10 })).toEqual([])
      expect(pageErrors).toEqual([])
    },
    STEP_TIMEOUT_MS,
  )
})

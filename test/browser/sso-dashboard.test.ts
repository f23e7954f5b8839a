/**
 * Dashboard sign-in through a real OpenID provider in a real browser (issue 31): Chromium (playwright-core) clicks
 * "Sign in with your company account", signs in on oidc-provider's own login and consent pages, lands on the
 * dashboard as the person with the role their groups map to, creates a key through the UI (a state-changing call
 * with the session cookie and its CSRF token), cannot read the session cookie from the page, and signs out
 * through the provider's end-session page. Under the dashboard's CSP: any refusal fails the test.
 * Skipped when Chromium is missing outside CI.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type Browser, type Locator, type Page } from 'playwright-core'
import { auditAdmin, type AuditAdmin } from '../helpers/audit-admin.ts'
import { startGateway, writeGatewayYaml, type RunningGateway } from '../helpers/gateway.ts'
import { startMockOpenAI, type MockUpstream } from '../helpers/mock-openai-upstream.ts'
import { startTestProvider, type TestProvider } from '../helpers/oidc-provider.ts'

const CHROMIUM = '/usr/bin/chromium'
const MASTER = 'master-key-for-sso-browser-0123456789abc'
const SHOTS = join(import.meta.dir, '..', '..', 'test-output', 'sso-dashboard')
const STEP_TIMEOUT_MS = 60_000
const WAIT_MS = 15_000

let mock: MockUpstream
let provider: TestProvider
let gw: RunningGateway
let audit: AuditAdmin
let browser: Browser
let page: Page
const pageErrors: string[] = []
const cspViolations: string[] = []

const visible = (locator: Locator) => locator.waitFor({ state: 'visible', timeout: WAIT_MS })
const screenshot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`) })

describe.skipIf(!existsSync(CHROMIUM) && !process.env.CI)('SSO sign-in in Chromium', () => {
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true })
    mock = startMockOpenAI()
    provider = await startTestProvider()
    provider.accounts.set('dana', { email: 'dana@acme.test', email_verified: true, name: 'Dana', groups: ['team-a-leads'] })
    gw = await startGateway({
      GATEWAY_MASTER_KEY: MASTER,
      OPENAI_API_KEY: 'sk-upstream',
      OPENAI_BASE_URL: mock.url,
      GATEWAY_CONFIG: writeGatewayYaml(`
auth:
  oidc:
    cookie_secure: false
    scopes: [openid, email, profile, groups]
    role_rules:
      - { claim: groups, includes: team-a-leads, role: key_manager, scope: /acme/team-a }
`),
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: provider.clientId,
      OIDC_CLIENT_SECRET: provider.clientSecret,
      OIDC_SESSION_SECRET: 'session-secret-for-sso-browser-0123456789',
      LOGGING_AUDIT_FLUSH_INTERVAL_MS: '5',
    })
    provider.serve(`${gw.url}/auth/oidc/callback`, `${gw.url}/dashboard`)
    audit = auditAdmin(gw.url, MASTER)
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] })
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
    page.on('pageerror', (error) => pageErrors.push(error.message))
    page.on('console', (message) => {
      // Only the dashboard's own pages are under its policy (the provider's pages load a web font we cannot reach).
      if (/Content Security Policy/i.test(message.text()) && page.url().startsWith(gw.url)) cspViolations.push(message.text())
    })
  }, STEP_TIMEOUT_MS)

  afterAll(async () => {
    await browser?.close()
    await gw?.stop()
    await provider?.stop()
    mock?.stop()
  })

  test(
    'signs in through the provider’s pages and lands on the dashboard with the mapped role',
    async () => {
      await page.goto(`${gw.url}/dashboard`)
      const ssoButton = page.getByRole('button', { name: 'Sign in with your company account' })
      await visible(ssoButton)
      await screenshot('sign-in')
      await ssoButton.click()
      // oidc-provider's development login page, then its consent page.
      await page.waitForURL((url) => url.toString().startsWith(provider.issuer), { timeout: WAIT_MS })
      await page.locator('input[name="login"]').fill('dana')
      await page.locator('input[name="password"]').fill('any password')
      await screenshot('provider-login')
      await page.locator('button[type="submit"]').first().click()
      await visible(page.getByRole('button', { name: 'Continue' }))
      await screenshot('provider-consent')
      await page.getByRole('button', { name: 'Continue' }).click()
      await page.waitForURL(`${gw.url}/dashboard`, { timeout: WAIT_MS })
      await visible(page.getByRole('navigation', { name: 'Main' }))
      await screenshot('signed-in')
      const who = await page.evaluate(async () => (await fetch('/admin/whoami')).json())
      expect(who).toMatchObject({ principal_id: 'oidc:dana', auth_method: 'oidc_session', role: 'key_manager', scope: '/acme/team-a' })
      // HttpOnly: the page's scripts cannot read the session.
      expect(await page.evaluate(() => document.cookie)).not.toContain('gw_session')
      expect(await page.evaluate(() => JSON.stringify(sessionStorage) + JSON.stringify(localStorage))).not.toContain('sk-')
    },
    STEP_TIMEOUT_MS,
  )

  test(
    'creates a key through the UI with the session (CSRF token sent), recorded with the person',
    async () => {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API Keys' }).click()
      await visible(page.getByRole('heading', { level: 1, name: 'API Keys' }))
      await page.getByRole('button', { name: 'Create API Key' }).click()
      const form = page.getByRole('dialog', { name: 'Create API Key' })
      await visible(form)
      await form.getByLabel('Name', { exact: true }).fill('made in an SSO session')
      await form.getByLabel('User path').fill('/acme/team-a/ci')
      await form.getByRole('button', { name: 'Create key' }).click()
      const created = page.getByRole('dialog', { name: 'API key created' })
      await visible(created)
      await screenshot('key-created')
      await created.getByRole('button', { name: 'Done' }).click()
      // A call without the token (what another site's form could make) is refused.
      const forged = await page.evaluate(async () => (await fetch('/admin/keys', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"x"}' })).status)
      expect(forged).toBe(403)
      const events = await audit.eventually(
        () => audit.list({ search: 'key.created' }),
        (p) => p.entries.some((e) => e.principal_id === 'oidc:dana'),
      )
      const entry = await audit.detail(events.entries.find((e) => e.principal_id === 'oidc:dana')!.id)
      expect(entry.data).toMatchObject({ actor_email: 'dana@acme.test' })
    },
    STEP_TIMEOUT_MS,
  )

  test(
    'signs out at the gateway and at the provider, and is back at sign-in',
    async () => {
      await page.getByRole('button', { name: 'Sign out' }).click()
      await page.waitForURL((url) => url.toString().startsWith(`${provider.issuer}/session/end`), { timeout: WAIT_MS })
      await screenshot('provider-sign-out')
      // oidc-provider asks whether to sign out of the provider too.
      await page.getByRole('button', { name: /Yes, sign me out/i }).click()
      await page.waitForURL((url) => url.toString().startsWith(`${gw.url}/dashboard`), { timeout: WAIT_MS })
      await visible(page.getByRole('button', { name: 'Sign in with your company account' }))
      expect(await page.evaluate(async () => (await fetch('/admin/whoami')).status)).toBe(401)
      await audit.eventually(
        () => audit.list({ search: 'dashboard.sign_out' }),
        (p) => p.entries.some((e) => e.principal_id === 'oidc:dana'),
      )
      expect(pageErrors).toEqual([])
      expect(cspViolations).toEqual([])
    },
    STEP_TIMEOUT_MS,
  )
})

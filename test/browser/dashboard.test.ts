/**
 * The dashboard in a real browser (Chromium through playwright-core) against a real gateway in front of a mock
 * OpenAI upstream: sign-in and its refusals, creating a key and using it with the official `openai` SDK,
 * finding that request in Audit Logs and opening it, revoking the key, Usage, Workflows, and the phone layout.
 * The steps run in order on one page and build on each other. Screenshots go to test-output/dashboard/.
 * Skipped when Chromium is missing outside CI (scripts/system-deps.sh installs it).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import OpenAI from 'openai'
import { chromium, type Browser, type Locator, type Page } from 'playwright-core'
import { auditAdmin, type AuditAdmin } from '../helpers/audit-admin.ts'
import { startGateway, type RunningGateway } from '../helpers/gateway.ts'
import { startMockOpenAI, type MockUpstream } from '../helpers/mock-openai-upstream.ts'
import { tracingSettingsFromEnv } from '../../src/observability/tracing-config.ts'

const CHROMIUM = '/usr/bin/chromium'
const MASTER = 'master-key-for-dashboard-tests-0123456789'
const TRACE_ID = '5b8efff798038103d269b633813fc60c'
const SHOTS = join(import.meta.dir, '..', '..', 'test-output', 'dashboard')
const STEP_TIMEOUT_MS = 60_000
const WAIT_MS = 15_000
const KEY_NAME = 'Browser test key'
const PROMPT = 'echo:hello from the dashboard test'

let mock: MockUpstream
let spanSink: ReturnType<typeof Bun.serve> | undefined
let gw: RunningGateway
let audit: AuditAdmin
let browser: Browser
let page: Page
const pageErrors: string[] = []
/** Everything the browser refused under the page's Content-Security-Policy (Chromium reports each on the console). */
const cspViolations: string[] = []
let secret = ''
let requestId = ''
let sessionTurnId = ''

const visible = (locator: Locator) => locator.waitFor({ state: 'visible', timeout: WAIT_MS })
const screenshot = (target: Page, name: string) => target.screenshot({ path: join(SHOTS, `${name}.png`) })
const sdk = (apiKey: string) => new OpenAI({ apiKey, baseURL: gw.baseURL, maxRetries: 0 })

async function adminPost(path: string, body: unknown) {
  const res = await fetch(`${gw.url}/admin${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  expect(res.ok).toBe(true)
  return (await res.json()) as { id: string; key: string }
}

async function newPage(viewport: { width: number; height: number }): Promise<Page> {
  const created = await browser.newPage({ viewport })
  created.on('pageerror', (error) => pageErrors.push(error.message))
  created.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text())
  })
  return created
}

async function signIn(target: Page, key: string) {
  await target.getByLabel('Admin key').fill(key)
  await target.getByRole('button', { name: 'Sign in' }).click()
}

async function openView(label: string, heading = label) {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: label }).click()
  await visible(page.getByRole('heading', { level: 1, name: heading }))
}

// In CI (CI=true, set by .ci/run) a missing browser is a failure, not a skip.
describe.skipIf(!existsSync(CHROMIUM) && !process.env.CI)('dashboard in Chromium', () => {
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true })
    mock = startMockOpenAI()
    // Traced (spans go to a receiver that accepts and drops them): entries carry a trace id for the entry view.
    spanSink = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => Response.json({}) })
    const tracing = tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${spanSink.port}` })
    gw = await startGateway(
      // The mock serves live calls only: batch lines are run by the gateway (BATCHES_GATEWAY_RUN_ALL).
      {
        GATEWAY_MASTER_KEY: MASTER,
        OPENAI_API_KEY: 'sk-upstream',
        OPENAI_BASE_URL: mock.url,
        LOGGING_LOG_BODIES: 'true',
        LOGGING_AUDIT_FLUSH_INTERVAL_MS: '5',
        BATCHES_GATEWAY_RUN_ALL: 'true',
        BATCHES_POLL_SECONDS: '1',
      },
      { tracing },
    )
    audit = auditAdmin(gw.url, MASTER)
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] })
    page = await newPage({ width: 1280, height: 800 })
  }, STEP_TIMEOUT_MS)

  afterAll(async () => {
    await browser?.close()
    await gw?.stop()
    mock?.stop()
    spanSink?.stop(true)
  })

  test('/ redirects a browser to /dashboard, which is served without credentials', async () => {
    const root = await fetch(`${gw.url}/`, { headers: { accept: 'text/html' }, redirect: 'manual' })
    expect(root.status).toBe(302)
    expect(root.headers.get('location')).toBe('/dashboard')
    const html = await fetch(`${gw.url}/dashboard`)
    expect(html.status).toBe(200)
    expect(html.headers.get('content-type')).toContain('text/html')
    // Everything below runs under this policy: the last test checks the browser refused nothing.
    expect(html.headers.get('content-security-policy')).toContain("script-src 'self'")
    expect(html.headers.get('content-security-policy')).not.toContain('unsafe-')
  })

  test(
    'no other site can frame the dashboard',
    async () => {
      // A page of another origin that embeds the dashboard.
      const framer = Bun.serve({
        port: 0,
        hostname: '127.0.0.1',
        fetch: () => new Response(`<iframe src="${gw.url}/dashboard" width="600" height="400"></iframe>`, { headers: { 'content-type': 'text/html' } }),
      })
      const framing = await newPage({ width: 800, height: 600 })
      try {
        const refused = framing.waitForEvent('console', { predicate: (m) => /frame-ancestors/.test(m.text()), timeout: WAIT_MS })
        await framing.goto(`http://127.0.0.1:${framer.port}/`)
        expect((await refused).text()).toContain("frame-ancestors 'none'")
        expect(await framing.frameLocator('iframe').getByLabel('Admin key').count()).toBe(0)
      } finally {
        await framing.close()
        framer.stop(true)
      }
      // The refusal is the test's own doing, not the dashboard's.
      cspViolations.length = 0
    },
    STEP_TIMEOUT_MS,
  )

  test(
    'a wrong key is refused with "That key is not valid."',
    async () => {
      await page.goto(`${gw.url}/dashboard`)
      await visible(page.getByLabel('Admin key'))
      await screenshot(page, 'sign-in')
      await signIn(page, 'not-a-valid-key')
      await visible(page.getByRole('alert').filter({ hasText: 'That key is not valid.' }))
    },
    STEP_TIMEOUT_MS,
  )

  test(
    'the master key signs in and lands on Audit Logs',
    async () => {
      await signIn(page, MASTER)
      await visible(page.getByRole('heading', { level: 1, name: 'Audit Logs' }))
      expect(await page.getByText('Signed in with the master key').isVisible()).toBe(true)
    },
    STEP_TIMEOUT_MS,
  )

  test(
    'the key stays in this tab only: not in localStorage; a reload keeps the session, a new tab does not have it',
    async () => {
      expect(await page.evaluate(() => JSON.stringify(localStorage))).not.toContain(MASTER)
      expect(await page.evaluate(() => JSON.stringify(sessionStorage))).toContain(MASTER)
      await page.reload()
      await visible(page.getByRole('heading', { level: 1, name: 'Audit Logs' }))
      const other = await newPage({ width: 800, height: 600 })
      await other.goto(`${gw.url}/dashboard`)
      await visible(other.getByLabel('Admin key'))
      await other.close()
    },
    STEP_TIMEOUT_MS,
  )

  test(
    'API Keys: a new key is created and its secret shown once',
    async () => {
      await openView('API Keys')
      await page.getByRole('button', { name: 'Create API Key' }).click()
      const form = page.getByRole('dialog', { name: 'Create API Key' })
      await visible(form)
      await form.getByLabel('Name', { exact: true }).fill(KEY_NAME)
      await form.getByLabel('Description').fill('Created by the browser test')
      await form.getByLabel('Allowed models').fill('openai/*')
      await form.getByRole('button', { name: 'Create key' }).click()
      const created = page.getByRole('dialog', { name: 'API key created' })
      await visible(created)
      secret = await created.getByLabel('Secret key').inputValue()
      expect(secret).toMatch(/^sk-gw-[A-Za-z0-9_-]{43}$/)
      await screenshot(page, 'keys-secret')
      await created.getByRole('button', { name: 'Done' }).click()
      await visible(page.getByRole('row', { name: new RegExp(KEY_NAME) }).getByText('active'))
      await screenshot(page, 'keys')
    },
    STEP_TIMEOUT_MS,
  )

  test(
    'Audit Logs: the SDK request made with the new key is found by its request id',
    async () => {
      const master = sdk(MASTER)
      const streamed = await master.chat.completions.stream({ model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'echo:streamed' }] }).finalChatCompletion()
      expect(streamed.choices[0]!.message.content).toBe('streamed')
      expect(await master.chat.completions.create({ model: 'openai/error-429', messages: [{ role: 'user', content: 'hi' }] }).catch((error: unknown) => error)).toBeInstanceOf(
        OpenAI.RateLimitError,
      )
      const session = { headers: { 'x-session-id': 'dashboard-session' } }
      await master.chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'echo:first turn' }] }, session)
      const secondTurn = await master.chat.completions
        .create(
          {
            model: 'openai/gpt-4o-mini',
            messages: [
              { role: 'user', content: 'echo:first turn' },
              { role: 'assistant', content: 'first turn' },
              { role: 'user', content: 'echo:second turn' },
            ],
          },
          session,
        )
        .withResponse()
      sessionTurnId = (await audit.entryFor(secondTurn.response.headers.get('x-request-id')!)).id

      requestId = crypto.randomUUID()
      const completion = await sdk(secret).chat.completions.create(
        { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: PROMPT }] },
        { headers: { 'x-request-id': requestId, traceparent: `00-${TRACE_ID}-00f067aa0ba902b7-01` } },
      )
      expect(completion.choices[0]!.message.content).toBe('hello from the dashboard test')
      await audit.entryFor(requestId)

      await openView('Audit Logs')
      await visible(page.getByRole('row', { name: /POST \/v1\/chat\/completions, status 429/ }))
      await screenshot(page, 'audit-list')
      await page.getByLabel('Search the audit log').fill(requestId)
      await visible(page.getByText('1–1 of 1'))
      expect(page.url()).toContain(`search=${requestId}`)
      expect(await page.getByRole('row', { name: /open details/ }).count()).toBe(1)
    },
    STEP_TIMEOUT_MS,
  )

  test(
    'the entry opens with Enter and shows the request and response bodies, then its conversation',
    async () => {
      await page.getByRole('row', { name: /open details/ }).focus()
      await page.keyboard.press('Enter')
      await visible(page.getByRole('heading', { level: 1, name: /\/v1\/chat\/completions/ }))
      const body = (title: string) => page.locator('details.json-block', { has: page.locator('summary', { hasText: title }) }).locator('code')
      expect(await body('Request body').textContent()).toContain(PROMPT)
      expect(await body('Response body').textContent()).toContain('"content": "hello from the dashboard test"')
      expect(await page.getByText(requestId).first().isVisible()).toBe(true)
      expect(await page.getByText(TRACE_ID).isVisible()).toBe(true)
      await visible(page.getByRole('heading', { name: 'Attempts' }))
      await screenshot(page, 'audit-detail')

      await page.getByRole('link', { name: 'Conversation' }).click()
      await visible(page.locator('.bubble.role-assistant', { hasText: 'hello from the dashboard test' }))
      await visible(page.locator('.bubble.role-user', { hasText: PROMPT }))
      await screenshot(page, 'audit-conversation')
    },
    STEP_TIMEOUT_MS,
  )

  test(
    'the Conversation tab shows a session as one transcript, folding the history a client resent',
    async () => {
      await page.goto(`${gw.url}/dashboard#/audit/${sessionTurnId}/conversation`)
      await visible(page.getByText('2 earlier messages repeated by the client'))
      const bubbles = page.locator('.bubble')
      expect(await bubbles.allTextContents()).toEqual(['userecho:first turn', 'assistantfirst turn', 'userecho:second turn', 'assistantsecond turn'])
      expect(await page.getByRole('region', { name: /^Request at/ }).count()).toBe(2)
    },
    STEP_TIMEOUT_MS,
  )

  test(
    'Audit Logs filters: status code, date presets and a custom range end up in the URL and narrow the list',
    async () => {
      await page.goto(`${gw.url}/dashboard#/audit`)
      await page.locator('summary', { hasText: 'Filters' }).click()
      await page.getByLabel('Status', { exact: true }).fill('429')
      await visible(page.getByText('1–1 of 1'))
      await visible(page.getByRole('row', { name: /status 429/ }))
      await page.getByRole('button', { name: 'Today' }).click()
      await page.waitForURL(/days=1/)
      await visible(page.getByRole('row', { name: /status 429/ }))
      await page.getByRole('button', { name: 'Custom' }).click()
      await visible(page.getByLabel('From'))
      expect(page.url()).toMatch(/start_date=\d{4}-\d{2}-\d{2}&end_date=\d{4}-\d{2}-\d{2}/)
      await page.getByRole('button', { name: 'Clear filters' }).click()
      await visible(page.locator('summary').getByText('Filters', { exact: true }))
      expect(page.url()).not.toContain('status_code')
    },
    STEP_TIMEOUT_MS,
  )

  test(
    'revoking the key (after a confirmation that Escape cancels) makes the next SDK call fail with 401',
    async () => {
      await openView('API Keys')
      await page.getByRole('button', { name: `Revoke ${KEY_NAME}` }).click()
      const confirm = page.getByRole('dialog', { name: 'Revoke API key?' })
      await visible(confirm)
      await page.keyboard.press('Escape')
      await confirm.waitFor({ state: 'detached', timeout: WAIT_MS })

      await page.getByRole('button', { name: `Revoke ${KEY_NAME}` }).click()
      await visible(confirm)
      await confirm.getByRole('button', { name: 'Revoke key' }).click()
      await confirm.waitFor({ state: 'detached', timeout: WAIT_MS })
      await visible(page.getByText('No API keys yet.'))
      await page.getByLabel('Show revoked').check()
      await visible(page.getByRole('row', { name: new RegExp(KEY_NAME) }).getByText('revoked'))

      const refused = await sdk(secret)
        .chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })
        .catch((error: unknown) => error)
      expect(refused).toBeInstanceOf(OpenAI.AuthenticationError)
      expect((refused as InstanceType<typeof OpenAI.AuthenticationError>).status).toBe(401)
    },
    STEP_TIMEOUT_MS,
  )

  test(
    'Usage shows the request in totals, the daily charts and the tables by model and by key',
    async () => {
      await openView('Usage')
      await visible(page.locator('.stat', { hasText: 'Requests' }).getByText('4', { exact: true }))
      // The daily series is a request of its own, answered after the totals or before: wait for its third chart
      // rather than count the charts as they come.
      await visible(page.locator('.daily-chart canvas').nth(2))
      expect(await page.locator('.daily-chart canvas').count()).toBe(3)
      await visible(page.getByRole('cell', { name: 'gpt-4o-mini' }))
      await page.getByRole('button', { name: 'API key', exact: true }).click()
      await visible(page.getByRole('cell', { name: KEY_NAME }))
      await screenshot(page, 'usage')
    },
    STEP_TIMEOUT_MS,
  )

  test(
    'Labels: a labelled request shows them in the list and the entry; a label filters; Usage groups by label',
    async () => {
      const labelled = crypto.randomUUID()
      const headers = { 'x-request-id': labelled, 'x-gateway-labels': 'browser-run', 'x-gateway-tag-team': 'qa' }
      await sdk(MASTER).chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'echo:labelled' }] }, { headers })
      await audit.entryFor(labelled)
      await page.goto(`${gw.url}/dashboard#/audit`)
      const chip = page.getByRole('link', { name: 'Filter by label team:qa' })
      await visible(chip)
      await screenshot(page, 'audit-labels')
      await chip.click()
      await page.waitForURL(/label=team%3Aqa/)
      await visible(page.getByText('1–1 of 1'))
      expect(await page.getByLabel('Label', { exact: true }).inputValue()).toBe('team:qa')
      await page.getByRole('row', { name: /open details/ }).click()
      await visible(page.getByRole('heading', { level: 1, name: /\/v1\/chat\/completions/ }))
      await visible(page.getByRole('link', { name: 'Filter by label browser-run' }))
      await openView('Usage')
      await page.getByRole('button', { name: 'Label', exact: true }).click()
      await visible(page.getByRole('cell', { name: 'team:qa' }))
      await visible(page.getByRole('cell', { name: '(no label)' }))
    },
    STEP_TIMEOUT_MS,
  )

  test(
    'Workflows: turning a feature on and saving creates a new version',
    async () => {
      await openView('Workflows')
      const card = page.getByRole('article', { name: 'default' })
      await visible(card.getByText('version 1'))
      await card.getByRole('checkbox', { name: 'cache', exact: true }).check()
      await card.locator('summary', { hasText: 'system-prompt' }).click()
      await card.getByLabel('prompt', { exact: true }).fill('Answer briefly.')
      await card.getByRole('button', { name: 'Save as new version' }).click()
      await visible(page.getByRole('status').filter({ hasText: 'Saved: version 2 applies to the next request.' }))
      await visible(page.getByRole('article', { name: 'default' }).getByText('version 2', { exact: true }))
      expect(await page.getByRole('article', { name: 'default' }).getByRole('checkbox', { name: 'cache', exact: true }).isChecked()).toBe(true)
      await screenshot(page, 'workflows')
      const workflows = (await (await fetch(`${gw.url}/admin/workflows`, { headers: { authorization: `Bearer ${MASTER}` } })).json()) as { data: { name: string }[] }
      expect(workflows.data.find((w) => w.name === 'default')).toMatchObject({ version: 2, features: { cache: true }, plugins: { 'system-prompt': { prompt: 'Answer briefly.' } } })
    },
    STEP_TIMEOUT_MS,
  )

  test(
    'a managed key without dashboard access is refused with "This key has no dashboard access."',
    async () => {
      const plain = await adminPost('/keys', { name: 'no dashboard' })
      await page.getByRole('button', { name: 'Sign out' }).click()
      await signIn(page, plain.key)
      await visible(page.getByRole('alert').filter({ hasText: 'This key has no dashboard access.' }))
    },
    STEP_TIMEOUT_MS,
  )

  test(
    'a viewer bound to a path sees its role and scope and is offered no changes: no key buttons, read-only workflows, no bodies',
    async () => {
      const viewer = await adminPost('/keys', { name: 'team viewer', role: 'viewer', user_path: '/acme/team-a' })
      const member = await adminPost('/keys', { name: 'team member', user_path: '/acme/team-a/bo' })
      const teamRequest = crypto.randomUUID()
      await sdk(member.key).chat.completions.create(
        { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'echo:team secret' }] },
        { headers: { 'x-request-id': teamRequest } },
      )
      const teamEntry = await audit.entryFor(teamRequest)
      await signIn(page, viewer.key)
      await visible(page.getByText('viewer of /acme/team-a'))
      await openView('API Keys')
      await visible(page.getByRole('row', { name: /team viewer/ }))
      expect(await page.getByRole('button', { name: 'Create API Key' }).count()).toBe(0)
      expect(await page.getByRole('button', { name: /^(Edit|Revoke) / }).count()).toBe(0)
      await openView('Workflows')
      await visible(page.getByRole('article', { name: 'default' }))
      expect(await page.getByRole('button', { name: 'Save as new version' }).count()).toBe(0)
      expect(await page.getByRole('button', { name: 'New workflow' }).count()).toBe(0)
      expect(await page.getByRole('article', { name: 'default' }).getByRole('checkbox', { name: 'cache', exact: true }).isDisabled()).toBe(true)
      await screenshot(page, 'viewer-workflows')
      await page.goto(`${gw.url}/dashboard#/audit/${teamEntry.id}`)
      await visible(page.getByRole('heading', { level: 1, name: /\/v1\/chat\/completions/ }))
      expect(await page.getByText('Bodies and headers are shown to auditors and admins only.').count()).toBe(2)
      expect(await page.getByText('team secret').count()).toBe(0)
      await page.getByRole('button', { name: 'Sign out' }).click()
    },
    STEP_TIMEOUT_MS,
  )

  test(
    'a dashboard-enabled key signs in, and a 401 later (key revoked meanwhile) returns to sign-in',
    async () => {
      const admin = await adminPost('/keys', { name: 'operator', dashboard_enabled: true })
      await signIn(page, admin.key)
      await openView('API Keys')
      await visible(page.getByRole('row', { name: /operator/ }))
      await adminPost(`/keys/${admin.id}/revoke`, {})
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit Logs' }).click()
      await visible(page.getByRole('status').filter({ hasText: 'Your key is no longer accepted. Sign in again.' }))
      await visible(page.getByLabel('Admin key'))
    },
    STEP_TIMEOUT_MS,
  )

  test(
    "the Files page shows the subtree's files (name, purpose, size, owner), never another tenant's, and filters by purpose",
    async () => {
      const viewer = await adminPost('/keys', { name: 'files viewer', role: 'viewer', user_path: '/acme/files' })
      const member = await adminPost('/keys', { name: 'files member', user_path: '/acme/files/ci' })
      const outsider = await adminPost('/keys', { name: 'files outsider', user_path: '/globex' })
      await sdk(member.key).files.create({ file: new File(['{"custom_id":"a"}\n'], 'team-input.jsonl'), purpose: 'batch' })
      await sdk(member.key).files.create({ file: new File(['notes'], 'team-notes.txt'), purpose: 'user_data' })
      await sdk(outsider.key).files.create({ file: new File(['theirs'], 'globex-secret.txt'), purpose: 'user_data' })
      await signIn(page, viewer.key)
      await openView('Files')
      const row = page.getByRole('row', { name: /team-input\.jsonl/ })
      await visible(row)
      expect(await row.textContent()).toContain('batch')
      expect(await row.textContent()).toContain('18 B')
      expect(await row.textContent()).toContain(member.id)
      await visible(page.getByRole('row', { name: /team-notes\.txt/ }))
      expect(await page.getByText('globex-secret.txt').count()).toBe(0)
      await page.getByLabel('Purpose').selectOption('batch')
      await page.getByRole('row', { name: /team-notes\.txt/ }).waitFor({ state: 'detached', timeout: WAIT_MS })
      await visible(page.getByRole('row', { name: /team-input\.jsonl/ }))
      await screenshot(page, 'files')
      await page.getByRole('button', { name: 'Sign out' }).click()
    },
    STEP_TIMEOUT_MS,
  )

  test(
    "the Batches page shows the subtree's batches (status, counts, cost, owner); a batch's lines link to their audit entries",
    async () => {
      const viewer = await adminPost('/keys', { name: 'batches viewer', role: 'viewer', user_path: '/acme/batches' })
      const member = await adminPost('/keys', { name: 'batches member', user_path: '/acme/batches/ci' })
      const client = sdk(member.key)
      const line = (customId: string, model: string) =>
        JSON.stringify({ custom_id: customId, method: 'POST', url: '/v1/chat/completions', body: { model, messages: [{ role: 'user', content: 'echo:batch line' }] } })
      const input = await client.files.create({
        file: new File([`${line('line-ok', 'openai/gpt-4o-mini')}\n${line('line-refused', 'nowhere/gpt-4o-mini')}\n`], 'lines.jsonl'),
        purpose: 'batch',
      })
      const batch = await client.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' })
      await audit.eventually(
        () => client.batches.retrieve(batch.id),
        (b) => b.status === 'completed',
        WAIT_MS,
      )
      await signIn(page, viewer.key)
      await openView('Batches')
      const row = page.getByRole('row', { name: new RegExp(batch.id) })
      await visible(row)
      expect(await row.textContent()).toContain('completed')
      expect(await row.textContent()).toContain('1 / 1 / 2')
      expect(await row.textContent()).toContain(member.id)
      await screenshot(page, 'batches')
      await row.getByRole('link', { name: batch.id }).click()
      await visible(page.getByRole('heading', { level: 1, name: `Batch ${batch.id}` }))
      const refused = page.getByRole('row', { name: /line-refused/ })
      await visible(refused)
      expect(await refused.textContent()).toContain('model_not_found')
      const ok = page.getByRole('row', { name: /line-ok/ })
      expect(await ok.textContent()).toContain('succeeded')
      await screenshot(page, 'batch-lines')
      await ok.getByRole('link', { name: 'open' }).click()
      await page.waitForURL(/#\/audit\/[0-9a-f-]+$/, { timeout: WAIT_MS })
      await visible(page.getByText('/v1/chat/completions').first())
      await page.getByRole('button', { name: 'Sign out' }).click()
    },
    STEP_TIMEOUT_MS,
  )

  test(
    'on a 390×844 phone the navigation folds behind a Menu button',
    async () => {
      const phone = await newPage({ width: 390, height: 844 })
      await phone.goto(`${gw.url}/dashboard`)
      await signIn(phone, MASTER)
      await visible(phone.getByRole('heading', { level: 1, name: 'Audit Logs' }))
      const usageLink = phone.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Usage' })
      expect(await usageLink.isVisible()).toBe(false)
      await phone.getByRole('button', { name: 'Menu' }).click()
      await visible(usageLink)
      await screenshot(phone, 'phone-menu')
      await usageLink.click()
      await visible(phone.getByRole('heading', { level: 1, name: 'Usage' }))
      expect(await usageLink.isVisible()).toBe(false)
      await phone.close()
    },
    STEP_TIMEOUT_MS,
  )

  test('the pages raised no script errors, and the browser refused nothing under the CSP', () => {
    expect(pageErrors).toEqual([])
    expect(cspViolations).toEqual([])
  })
})

/**
 * The dashboard's audit entries of media endpoints in a real browser (Chromium through playwright-core) against a
 * real gateway with bodies logged, in front of the mock OpenAI upstream: an image answer's `b64_json` shown as a
 * thumbnail (a data URL of the mock's PNG), a speech answer shown by type, size and SHA-256 with the
 * note that its bytes are not kept, and a transcription upload's parts (names, file name, content type, size,
 * SHA-256). Requests go through the official `openai` SDK. Screenshots go to test-output/dashboard/.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import OpenAI, { toFile } from 'openai'
import { chromium, type Browser, type Locator, type Page } from 'playwright-core'
import { auditAdmin, type AuditAdmin } from '../helpers/audit-admin.ts'
import { startGateway, type RunningGateway } from '../helpers/gateway.ts'
import { SPEECH_CHUNK_BYTES, SPEECH_CHUNKS } from '../helpers/mock-openai-media.ts'
import { startMockOpenAI, type MockUpstream } from '../helpers/mock-openai-upstream.ts'

const CHROMIUM = '/usr/bin/chromium'
const MASTER = 'master-key-for-media-dashboard-tests-0123'
const SHOTS = join(import.meta.dir, '..', '..', 'test-output', 'dashboard')
const STEP_TIMEOUT_MS = 60_000
const WAIT_MS = 15_000

let mock: MockUpstream
let gw: RunningGateway
let audit: AuditAdmin
let openai: OpenAI
let browser: Browser
let page: Page
const pageErrors: string[] = []
const cspViolations: string[] = []

const visible = (locator: Locator) => locator.waitFor({ state: 'visible', timeout: WAIT_MS })
const sha256 = (bytes: Uint8Array) => new Bun.CryptoHasher('sha256').update(bytes).digest('hex')

async function openEntry(requestId: string) {
  const entry = await audit.entryFor(requestId)
  await page.goto(`${gw.url}/dashboard#/audit/${entry.id}`)
  await visible(page.getByRole('heading', { level: 2, name: 'Bodies' }))
  return entry
}

describe.skipIf(!existsSync(CHROMIUM) && !process.env.CI)('media entries in the dashboard (Chromium)', () => {
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true })
    mock = startMockOpenAI()
    gw = await startGateway({
      GATEWAY_MASTER_KEY: MASTER,
      OPENAI_API_KEY: 'sk-upstream',
      OPENAI_BASE_URL: mock.url,
      LOGGING_LOG_BODIES: 'true',
      LOGGING_AUDIT_FLUSH_INTERVAL_MS: '5',
    })
    audit = auditAdmin(gw.url, MASTER)
    openai = new OpenAI({ apiKey: MASTER, baseURL: gw.baseURL, maxRetries: 0 })
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] })
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    page.on('pageerror', (error) => pageErrors.push(error.message))
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text())
    })
    await page.goto(`${gw.url}/dashboard`)
    await page.getByLabel('Admin key').fill(MASTER)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await visible(page.getByRole('heading', { level: 1, name: 'Audit Logs' }))
  }, STEP_TIMEOUT_MS)

  afterAll(async () => {
    await browser?.close()
    await gw?.stop()
    mock?.stop()
  })

  test(
    "an image answer's b64_json is shown as a thumbnail: a data URL of its PNG, allowed by the page's CSP",
    async () => {
      const { data, response } = await openai.images.generate({ model: 'openai/dall-e-3', prompt: 'a lighthouse at night', n: 2 }).withResponse()
      expect(data.data).toHaveLength(2)
      await openEntry(response.headers.get('x-request-id')!)
      const thumbnails = page.getByRole('group', { name: 'Images in the answer' }).getByRole('img')
      await visible(thumbnails.first())
      expect(await thumbnails.count()).toBe(2)
      expect(await thumbnails.first().getAttribute('alt')).toBe('Answer data[0]')
      expect(await thumbnails.first().getAttribute('src')).toBe(`data:image/png;base64,${data.data![0]!.b64_json}`)
      // The mock's image is a PNG signature and a few bytes, which no browser can draw: the element and its URL are
      // what is checked (and, in the last test, that the page's CSP refused nothing).
      await page.screenshot({ path: join(SHOTS, 'audit-image-answer.png') })
      // The body itself is still shown.
      await visible(page.getByText('Response body', { exact: false }).first())
    },
    STEP_TIMEOUT_MS,
  )

  test(
    'a speech answer is shown by type, size and SHA-256, saying its bytes are not kept',
    async () => {
      const response = await openai.audio.speech.create({ model: 'openai/tts-1', voice: 'alloy', input: 'Hello from the dashboard test.' })
      const audio = new Uint8Array(await response.arrayBuffer())
      expect(audio.byteLength).toBe(SPEECH_CHUNK_BYTES * SPEECH_CHUNKS)
      await openEntry(response.headers.get('x-request-id')!)
      const binary = page.locator('.binary-answer')
      await visible(binary)
      const text = await binary.innerText()
      expect(text).toContain('audio/mpeg')
      expect(text).toContain(`${((SPEECH_CHUNK_BYTES * SPEECH_CHUNKS) / 1024).toFixed(1)} KiB`)
      expect(text).toContain(sha256(audio))
      expect(text).toContain('cannot be played here')
      expect(await page.locator('audio').count()).toBe(0)
      await page.screenshot({ path: join(SHOTS, 'audit-speech-answer.png') })
    },
    STEP_TIMEOUT_MS,
  )

  test(
    "a transcription's upload parts: names, file name, content type, size and SHA-256",
    async () => {
      const file = crypto.getRandomValues(new Uint8Array(40_000))
      const { response } = await openai.audio.transcriptions
        .create({ model: 'openai/whisper-1', file: await toFile(file, 'meeting.mp3', { type: 'audio/mpeg' }), language: 'en' })
        .withResponse()
      await openEntry(response.headers.get('x-request-id')!)
      const table = page.getByRole('table', { name: /Request parts/ })
      await visible(table)
      const fileRow = table.getByRole('row').filter({ hasText: 'meeting.mp3' })
      const cells = await fileRow.getByRole('cell').allInnerTexts()
      expect(cells).toEqual(['meeting.mp3', 'audio/mpeg', '39.1 KiB', sha256(file)])
      expect(await fileRow.getByRole('rowheader').innerText()).toBe('file')
      const languageRow = table.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'language' }) })
      expect(await languageRow.getByRole('cell').first().innerText()).toBe('text field')
      await page.screenshot({ path: join(SHOTS, 'audit-upload-parts.png') })
      expect(pageErrors).toEqual([])
      expect(cspViolations).toEqual([])
    },
    STEP_TIMEOUT_MS,
  )
})

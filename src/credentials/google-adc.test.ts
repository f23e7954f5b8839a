/**
 * Google Application Default Credentials against a loopback token service that verifies what Google verifies:
 * the service account's JWT (signature by its public key, audience = the key file's own token_uri, scope), the
 * refresh token of an authorized user, workload identity federation (STS exchange, then impersonation) and the
 * metadata server; each failure as a credential GatewayError.
 */
import { afterEach, describe, expect, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { GatewayError } from '../errors/gateway-error.ts'
import { serviceAccountKey, startMockGoogleAuth } from '../../test/helpers/mock-google-auth.ts'
import { tempDirs } from '../../test/helpers/temp-dirs.ts'
import { fetchGoogleToken, googleTokenSource } from './google-adc.ts'

const tempDir = tempDirs('google-adc-')
const stops: (() => void)[] = []
afterEach(() => {
  for (const stop of stops.splice(0)) stop()
})

function mock(options: Parameters<typeof startMockGoogleAuth>[0] = {}) {
  const m = startMockGoogleAuth(options)
  stops.push(m.stop)
  return m
}

function keyFile(contents: unknown): string {
  const path = join(tempDir(), 'key.json')
  writeFileSync(path, JSON.stringify(contents))
  return path
}

/** An environment with no key file and no gcloud folder, so nothing is found by accident. */
function isolated(extra: Record<string, string> = {}): Record<string, string> {
  return { HOME: tempDir(), ...extra }
}

describe('service account key files', () => {
  test("a signed JWT is exchanged at the key file's own token_uri; the token is cached", async () => {
    const google = mock()
    const key = await serviceAccountKey(google.tokenUri)
    google.serviceAccount(key.file.client_email!, key.publicKey, key.file.private_key_id!)
    const source = googleTokenSource('vertex', { credentialsFile: keyFile(key.file) }, isolated())
    const token = await source.get()
    expect(typeof token === 'string' && google.accepts(token)).toBe(true)
    expect(await source.get()).toBe(token)
    expect(google.calls.jwt).toBe(1)
  })

  test('GOOGLE_APPLICATION_CREDENTIALS names the file when the settings do not', async () => {
    const google = mock()
    const key = await serviceAccountKey(google.tokenUri)
    google.serviceAccount(key.file.client_email!, key.publicKey, key.file.private_key_id!)
    const token = await fetchGoogleToken('vertex', {}, isolated({ GOOGLE_APPLICATION_CREDENTIALS: keyFile(key.file) }))
    expect(token).toMatchObject({ value: expect.stringMatching(/^ya29\.sa-/) })
  })

  test('a key the token service does not know (another key pair) is google_credentials_refused, without the key', async () => {
    const google = mock()
    const registered = await serviceAccountKey(google.tokenUri)
    const other = await serviceAccountKey(google.tokenUri)
    google.serviceAccount(registered.file.client_email!, registered.publicKey, registered.file.private_key_id!)
    const forged = { ...other.file, private_key_id: registered.file.private_key_id }
    const error = await fetchGoogleToken('vertex', { credentialsFile: keyFile(forged) }, isolated())
    expect(error).toBeInstanceOf(GatewayError)
    expect(error).toMatchObject({ status: 502, code: 'google_credentials_refused', provider: 'vertex' })
    expect((error as GatewayError).message).toContain('Invalid JWT Signature')
    expect((error as GatewayError).message).not.toContain('PRIVATE KEY')
  })

  test('the JWT audience is the token_uri: a key file naming another token URI is refused by this one', async () => {
    const google = mock()
    const key = await serviceAccountKey(`${google.url}/token?other=1`)
    google.serviceAccount(key.file.client_email!, key.publicKey, key.file.private_key_id!)
    const error = await fetchGoogleToken('vertex', { credentialsFile: keyFile(key.file) }, isolated())
    expect(error).toMatchObject({ code: 'google_credentials_refused' })
    expect((error as GatewayError).message).toContain('aud')
  })

  test('an unreadable file, a non-JSON file, a bad private key and an unknown type are google_credentials_invalid', async () => {
    const dir = tempDir()
    const notJson = join(dir, 'bad.json')
    writeFileSync(notJson, 'not json')
    expect(await fetchGoogleToken('vertex', { credentialsFile: join(dir, 'missing.json') }, isolated())).toMatchObject({ code: 'google_credentials_invalid', status: 502 })
    expect(await fetchGoogleToken('vertex', { credentialsFile: notJson }, isolated())).toMatchObject({ code: 'google_credentials_invalid' })
    const badKey = keyFile({
      type: 'service_account',
      client_email: 'a@b',
      private_key: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n',
      token_uri: 'http://127.0.0.1:9/token',
    })
    expect(await fetchGoogleToken('vertex', { credentialsFile: badKey }, isolated())).toMatchObject({ code: 'google_credentials_invalid' })
    expect(await fetchGoogleToken('vertex', { credentialsFile: keyFile({ type: 'impersonated_service_account' }) }, isolated())).toMatchObject({
      code: 'google_credentials_invalid',
    })
  })

  test('a token service that does not answer is google_credentials_unreachable (503)', async () => {
    const google = mock()
    const key = await serviceAccountKey('http://127.0.0.1:9/token')
    google.stop()
    expect(await fetchGoogleToken('vertex', { credentialsFile: keyFile(key.file) }, isolated())).toMatchObject({ code: 'google_credentials_unreachable', status: 503 })
  })
})

describe('other sources', () => {
  test("an authorized user's refresh token (gcloud's well-known file)", async () => {
    const user = { clientId: 'client.apps.googleusercontent.com', clientSecret: 'd-FL95Q19q7MQmFpd7hHD0Ty', refreshToken: '1//refresh-token' }
    const google = mock({ refreshUser: user })
    const home = tempDir()
    const gcloud = join(home, '.config', 'gcloud')
    require('node:fs').mkdirSync(gcloud, { recursive: true })
    writeFileSync(
      join(gcloud, 'application_default_credentials.json'),
      JSON.stringify({ type: 'authorized_user', client_id: user.clientId, client_secret: user.clientSecret, refresh_token: user.refreshToken, token_uri: google.tokenUri }),
    )
    expect(await fetchGoogleToken('vertex', {}, { HOME: home })).toMatchObject({ value: expect.stringMatching(/^ya29\.user-/) })
  })

  test('workload identity federation: the subject token file exchanged at STS, then a service account impersonated', async () => {
    const dir = tempDir()
    const subjectFile = join(dir, 'oidc-token')
    writeFileSync(subjectFile, JSON.stringify({ id_token: 'eyJ.oidc.sig' }))
    const audience = '//iam.googleapis.com/projects/123/locations/global/workloadIdentityPools/pool/providers/github'
    const google = mock({ federation: { audience, subjectToken: () => 'eyJ.oidc.sig', impersonate: 'vertex-caller@test-project.iam.gserviceaccount.com' } })
    const file = keyFile({
      type: 'external_account',
      audience,
      subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
      token_url: `${google.url}/sts/v1/token`,
      service_account_impersonation_url: `${google.url}/v1/projects/-/serviceAccounts/vertex-caller@test-project.iam.gserviceaccount.com:generateAccessToken`,
      credential_source: { file: subjectFile, format: { type: 'json', subject_token_field_name: 'id_token' } },
    })
    const token = await fetchGoogleToken('vertex', { credentialsFile: file }, isolated())
    expect(token).toMatchObject({ value: expect.stringMatching(/^ya29\.impersonated-/) })
    expect([google.calls.sts, google.calls.impersonate]).toEqual([1, 1])
  })

  test('federation without impersonation uses the federated token; a wrong audience is refused', async () => {
    const dir = tempDir()
    const subjectFile = join(dir, 'token')
    writeFileSync(subjectFile, 'eyJ.k8s.sig\n')
    const audience = '//iam.googleapis.com/projects/123/locations/global/workloadIdentityPools/pool/providers/k8s'
    const google = mock({ federation: { audience, subjectToken: () => 'eyJ.k8s.sig' } })
    const key = {
      type: 'external_account',
      audience,
      subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
      token_url: `${google.url}/sts/v1/token`,
      credential_source: { file: subjectFile },
    }
    expect(await fetchGoogleToken('vertex', { credentialsFile: keyFile(key) }, isolated())).toMatchObject({ value: expect.stringMatching(/^ya29\.federated-/) })
    expect(await fetchGoogleToken('vertex', { credentialsFile: keyFile({ ...key, audience: `${audience}-other` }) }, isolated())).toMatchObject({
      code: 'google_credentials_refused',
    })
  })

  test('the metadata server (GCE_METADATA_HOST), with its Metadata-Flavor header', async () => {
    const google = mock()
    const token = await fetchGoogleToken('vertex', {}, isolated({ GCE_METADATA_HOST: google.url.replace('http://', '') }))
    expect(token).toMatchObject({ value: expect.stringMatching(/^ya29\.metadata-/) })
    expect(google.calls.metadata).toBe(1)
  })
})

/**
 * The AWS credential chain against loopback fixtures: keys in the environment, the shared files with profiles, web
 * identity through a mock STS, the ECS container endpoint and EC2 IMDSv2, renewal before expiry, and each failure
 * as the credential GatewayError it should be. The instance metadata service is disabled or on loopback in every
 * test, so nothing leaves the machine.
 */
import { afterEach, describe, expect, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { GatewayError } from '../errors/gateway-error.ts'
import { startMockAwsIdentity } from '../../test/helpers/mock-aws-identity.ts'
import { tempDirs } from '../../test/helpers/temp-dirs.ts'
import { awsCredentialSource } from './aws-credentials.ts'

const tempDir = tempDirs('aws-creds-')
const AWS_VARIABLES = [
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_PROFILE',
  'AWS_SHARED_CREDENTIALS_FILE',
  'AWS_CONFIG_FILE',
  'AWS_WEB_IDENTITY_TOKEN_FILE',
  'AWS_ROLE_ARN',
  'AWS_ENDPOINT_URL_STS',
  'AWS_CONTAINER_CREDENTIALS_FULL_URI',
  'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
  'AWS_CONTAINER_AUTHORIZATION_TOKEN',
  'AWS_EC2_METADATA_SERVICE_ENDPOINT',
  'AWS_EC2_METADATA_DISABLED',
]
const saved = Object.fromEntries(AWS_VARIABLES.map((name) => [name, process.env[name]]))
const stops: (() => void)[] = []

/** A clean AWS environment: no keys, files that do not exist, no instance metadata (unless the test sets it). */
function awsEnvironment(vars: Record<string, string>) {
  const dir = tempDir()
  for (const name of AWS_VARIABLES) delete process.env[name]
  Object.assign(process.env, { AWS_SHARED_CREDENTIALS_FILE: join(dir, 'none-credentials'), AWS_CONFIG_FILE: join(dir, 'none-config'), AWS_EC2_METADATA_DISABLED: 'true' }, vars)
  return dir
}

afterEach(() => {
  for (const stop of stops.splice(0)) stop()
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  }
})

function mock(options: Parameters<typeof startMockAwsIdentity>[0] = {}) {
  const m = startMockAwsIdentity(options)
  stops.push(m.stop)
  return m
}

describe('awsCredentialSource', () => {
  test('static keys from the settings are used as they are, without loading the SDK chain', async () => {
    awsEnvironment({})
    const source = awsCredentialSource('bedrock', { region: 'us-east-1', accessKeyId: 'AKIASETTINGS', secretAccessKey: 'settings-secret' })
    expect(await source.get()).toEqual({ accessKeyId: 'AKIASETTINGS', secretAccessKey: 'settings-secret', sessionToken: undefined })
  })

  test('keys from the environment', async () => {
    awsEnvironment({ AWS_ACCESS_KEY_ID: 'AKIAENVIRONMENT', AWS_SECRET_ACCESS_KEY: 'env-secret', AWS_SESSION_TOKEN: 'env-session' })
    const credentials = await awsCredentialSource('bedrock', { region: 'us-east-1' }).get()
    expect(credentials).toMatchObject({ accessKeyId: 'AKIAENVIRONMENT', secretAccessKey: 'env-secret', sessionToken: 'env-session' })
  })

  test('the shared credentials file, with the profile named in the settings or by AWS_PROFILE', async () => {
    const dir = awsEnvironment({})
    const file = join(dir, 'credentials')
    writeFileSync(
      file,
      '[default]\naws_access_key_id = AKIADEFAULT\naws_secret_access_key = default-secret\n\n[prod]\naws_access_key_id = AKIAPROD\naws_secret_access_key = prod-secret\n',
    )
    process.env.AWS_SHARED_CREDENTIALS_FILE = file
    expect(await awsCredentialSource('bedrock', { region: 'us-east-1' }).get()).toMatchObject({ accessKeyId: 'AKIADEFAULT' })
    expect(await awsCredentialSource('bedrock', { region: 'us-east-1', profile: 'prod' }).get()).toMatchObject({ accessKeyId: 'AKIAPROD', secretAccessKey: 'prod-secret' })
    process.env.AWS_PROFILE = 'prod'
    expect(await awsCredentialSource('bedrock', { region: 'us-east-1' }).get()).toMatchObject({ accessKeyId: 'AKIAPROD' })
  })

  test('a config-file profile that assumes a role with a web identity token file goes through STS', async () => {
    const dir = awsEnvironment({})
    const tokenFile = join(dir, 'token')
    writeFileSync(tokenFile, 'eyJ.profile-token.sig')
    const sts = mock({ roleArn: 'arn:aws:iam::123456789012:role/from-profile', webIdentityToken: () => 'eyJ.profile-token.sig' })
    process.env.AWS_ENDPOINT_URL_STS = sts.url
    process.env.AWS_CONFIG_FILE = join(dir, 'config')
    writeFileSync(process.env.AWS_CONFIG_FILE, `[profile web]\nrole_arn = arn:aws:iam::123456789012:role/from-profile\nweb_identity_token_file = ${tokenFile}\n`)
    const credentials = await awsCredentialSource('bedrock', { region: 'us-east-1', profile: 'web' }).get()
    expect(credentials).toMatchObject({ accessKeyId: expect.stringMatching(/^ASIAMOCK/) })
    expect(sts.calls.sts).toBe(1)
  })

  test('web identity from AWS_WEB_IDENTITY_TOKEN_FILE and AWS_ROLE_ARN (EKS): the token file is read again for a renewal', async () => {
    const dir = awsEnvironment({})
    const tokenFile = join(dir, 'token')
    let podToken = 'eyJ.first.sig'
    writeFileSync(tokenFile, podToken)
    const sts = mock({ roleArn: 'arn:aws:iam::123456789012:role/gateway', webIdentityToken: () => podToken, lifetimeMs: () => 2_000 })
    Object.assign(process.env, { AWS_WEB_IDENTITY_TOKEN_FILE: tokenFile, AWS_ROLE_ARN: 'arn:aws:iam::123456789012:role/gateway', AWS_ENDPOINT_URL_STS: sts.url })
    const source = awsCredentialSource('bedrock', { region: 'us-east-1' })
    const first = await source.get()
    expect(first).toMatchObject({ accessKeyId: expect.stringMatching(/^ASIAMOCK/), sessionToken: expect.stringMatching(/^IQoJmock/) })
    expect(await source.get()).toBe(first)
    expect(sts.calls.sts).toBe(1)
    // Half way through its two-second life the credential is within its renewal margin: the next request starts a
    // renewal in the background and still gets the valid one; kubelet has rotated the token file meanwhile.
    podToken = 'eyJ.rotated.sig'
    writeFileSync(tokenFile, podToken)
    await Bun.sleep(1_100)
    expect(await source.get()).toBe(first)
    await waitFor(() => sts.calls.sts === 2)
    const renewed = await source.get()
    expect(renewed).not.toBe(first)
    expect((renewed as { accessKeyId: string }).accessKeyId).not.toBe((first as { accessKeyId: string }).accessKeyId)
  })

  test('the role and token file from the settings (a YAML instance)', async () => {
    const dir = awsEnvironment({})
    const tokenFile = join(dir, 'token')
    writeFileSync(tokenFile, 'eyJ.yaml.sig')
    const sts = mock({ roleArn: 'arn:aws:iam::123456789012:role/yaml', webIdentityToken: () => 'eyJ.yaml.sig' })
    process.env.AWS_ENDPOINT_URL_STS = sts.url
    const credentials = await awsCredentialSource('bedrock', { region: 'us-east-1', roleArn: 'arn:aws:iam::123456789012:role/yaml', webIdentityTokenFile: tokenFile }).get()
    expect(credentials).toMatchObject({ accessKeyId: expect.stringMatching(/^ASIAMOCK/) })
  })

  test('STS refusing the role is aws_credentials_refused (502), naming STS and not the token', async () => {
    const dir = awsEnvironment({})
    const tokenFile = join(dir, 'token')
    writeFileSync(tokenFile, 'eyJ.secret-token.sig')
    const sts = mock({ roleArn: 'arn:aws:iam::123456789012:role/other', webIdentityToken: () => 'eyJ.secret-token.sig' })
    Object.assign(process.env, { AWS_WEB_IDENTITY_TOKEN_FILE: tokenFile, AWS_ROLE_ARN: 'arn:aws:iam::123456789012:role/gateway', AWS_ENDPOINT_URL_STS: sts.url })
    const error = await awsCredentialSource('bedrock', { region: 'us-east-1' }).get()
    expect(error).toBeInstanceOf(GatewayError)
    expect(error).toMatchObject({ status: 502, code: 'aws_credentials_refused', provider: 'bedrock' })
    expect((error as GatewayError).message).toContain('AccessDenied')
    expect((error as GatewayError).message).not.toContain('secret-token')
  })

  test('the ECS container credentials endpoint, with its authorization token', async () => {
    awsEnvironment({})
    const ecs = mock({ containerAuthorization: 'ecs-auth-token' })
    Object.assign(process.env, { AWS_CONTAINER_CREDENTIALS_FULL_URI: `${ecs.url}/ecs/credentials`, AWS_CONTAINER_AUTHORIZATION_TOKEN: 'ecs-auth-token' })
    expect(await awsCredentialSource('bedrock', { region: 'us-east-1' }).get()).toMatchObject({ accessKeyId: expect.stringMatching(/^ASIAMOCK/) })
    expect(ecs.calls.ecs).toBe(1)
  })

  test('EC2 instance metadata in IMDSv2 mode: a session token first, then the role and its credentials', async () => {
    awsEnvironment({})
    const imds = mock({ instanceRole: 'bedrock-role' })
    delete process.env.AWS_EC2_METADATA_DISABLED
    process.env.AWS_EC2_METADATA_SERVICE_ENDPOINT = imds.url
    const credentials = await awsCredentialSource('bedrock', { region: 'us-east-1' }).get()
    expect(credentials).toMatchObject({ accessKeyId: expect.stringMatching(/^ASIAMOCK/), sessionToken: expect.stringMatching(/^IQoJmock/) })
    expect(imds.calls['imds-token']).toBeGreaterThanOrEqual(1)
    expect(imds.calls['imds-credentials']).toBe(1)
  })

  test('no source at all is aws_credentials_missing (502)', async () => {
    awsEnvironment({})
    const error = await awsCredentialSource('bedrock', { region: 'us-east-1' }).get()
    expect(error).toMatchObject({ status: 502, code: 'aws_credentials_missing', provider: 'bedrock' })
  })

  test('a container endpoint that does not answer is aws_credentials_unreachable (503)', async () => {
    awsEnvironment({ AWS_CONTAINER_CREDENTIALS_FULL_URI: 'http://127.0.0.1:9/ecs/credentials' })
    const error = await awsCredentialSource('bedrock', { region: 'us-east-1' }).get()
    expect(error).toBeInstanceOf(GatewayError)
    expect([(error as GatewayError).code, (error as GatewayError).status]).toEqual(['aws_credentials_unreachable', 503])
  })
})

async function waitFor(condition: () => boolean, ms = 3000): Promise<void> {
  const until = Date.now() + ms
  while (!condition()) {
    if (Date.now() > until) throw new Error('condition not met in time')
    await Bun.sleep(10)
  }
}

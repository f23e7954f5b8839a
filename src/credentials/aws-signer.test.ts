import { describe, expect, test } from 'bun:test'
import { GatewayError } from '../errors/gateway-error.ts'
import { sigV4Problem } from '../../test/helpers/sigv4-verifier.ts'
import { awsCredentialSource } from './aws-credentials.ts'
import { sigV4Signer } from './aws-signer.ts'

const KEY = { accessKeyId: 'AKIDSIGNERTEST', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYSIGNERKEY' }
const keys = { [KEY.accessKeyId]: { secret: KEY.secretAccessKey } }

async function signed(url: string, body: string, region = 'us-east-1', service = 'bedrock') {
  const sign = sigV4Signer({ service, region, credentials: awsCredentialSource('bedrock', { region, ...KEY }) })
  const headers = await sign({ method: 'POST', url, headers: { 'content-type': 'application/json' }, body })
  if (headers instanceof GatewayError) throw headers
  const parsed = new URL(url)
  return { method: 'POST', target: `${parsed.pathname}${parsed.search}`, headers: new Headers({ ...headers, host: parsed.host }), body }
}

describe('the SigV4 verifier of the tests', () => {
  test("accepts AWS's published example request and refuses it changed", () => {
    const headers = new Headers({
      'content-type': 'application/x-www-form-urlencoded; charset=utf-8',
      host: 'iam.amazonaws.com',
      'x-amz-date': '20150830T123600Z',
      authorization:
        'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request, SignedHeaders=content-type;host;x-amz-date, Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7',
    })
    const expectation = {
      region: 'us-east-1',
      service: 'iam',
      keys: { AKIDEXAMPLE: { secret: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' } },
      now: new Date('2015-08-30T12:36:00Z'),
    }
    expect(sigV4Problem({ method: 'GET', target: '/?Action=ListUsers&Version=2010-05-08', headers, body: '' }, expectation)).toBeUndefined()
    expect(sigV4Problem({ method: 'GET', target: '/?Action=ListUsers&Version=2010-05-09', headers, body: '' }, expectation)).toContain('does not match')
  })
})

describe('sigV4Signer', () => {
  test('signs the path as sent: a Bedrock model id with ":" and "." and a cross-region profile id', async () => {
    const request = await signed('http://127.0.0.1:4566/model/us.anthropic.claude-sonnet-4-20250514-v1%3A0/converse', '{"messages":[]}')
    expect(sigV4Problem(request, { region: 'us-east-1', service: 'bedrock', keys })).toBeUndefined()
    expect(request.headers.get('authorization')).toContain('/us-east-1/bedrock/aws4_request')
    expect(request.headers.get('x-amz-content-sha256')).toHaveLength(64)
  })

  test('a query is signed too', async () => {
    const request = await signed('https://bedrock-runtime.eu-west-1.amazonaws.com/model/x/invoke?b=2&a=1&a=0', '{}', 'eu-west-1')
    expect(sigV4Problem(request, { region: 'eu-west-1', service: 'bedrock', keys })).toBeUndefined()
  })

  test('a wrong region, service, secret or a changed body fails the check', async () => {
    const request = await signed('http://127.0.0.1:1/model/m/converse', '{"a":1}')
    expect(sigV4Problem(request, { region: 'us-west-2', service: 'bedrock', keys })).toContain('region')
    expect(sigV4Problem(request, { region: 'us-east-1', service: 'sagemaker', keys })).toContain('service')
    expect(sigV4Problem(request, { region: 'us-east-1', service: 'bedrock', keys: { [KEY.accessKeyId]: { secret: 'other' } } })).toContain('does not match')
    expect(sigV4Problem({ ...request, body: '{"a":2}' }, { region: 'us-east-1', service: 'bedrock', keys })).toContain('does not match the body')
  })

  test('temporary credentials send their session token, signed', async () => {
    const sign = sigV4Signer({
      service: 'bedrock',
      region: 'us-east-1',
      credentials: awsCredentialSource('bedrock', { region: 'us-east-1', ...KEY, sessionToken: 'IQoJb3JpZ2luSESSION' }),
    })
    const headers = await sign({ method: 'POST', url: 'http://127.0.0.1:1/model/m/converse', headers: {}, body: '{}' })
    if (headers instanceof GatewayError) throw headers
    expect(headers['x-amz-security-token']).toBe('IQoJb3JpZ2luSESSION')
    const request = { method: 'POST', target: '/model/m/converse', headers: new Headers({ ...headers, host: '127.0.0.1:1' }), body: '{}' }
    expect(
      sigV4Problem(request, { region: 'us-east-1', service: 'bedrock', keys: { [KEY.accessKeyId]: { secret: KEY.secretAccessKey, sessionToken: 'IQoJb3JpZ2luSESSION' } } }),
    ).toBeUndefined()
    expect(headers.authorization).toContain('x-amz-security-token')
  })
})

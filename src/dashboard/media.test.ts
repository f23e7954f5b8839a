import { expect, test } from 'bun:test'
import { answerImages } from './media.ts'

const b64 = (bytes: number[] | string) => Buffer.from(typeof bytes === 'string' ? bytes : Uint8Array.from(bytes)).toString('base64')
const png = b64([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4])
const jpeg = b64([0xff, 0xd8, 0xff, 0xe0, 0, 0x10])
const webp = b64('RIFF\u0000\u0000\u0000\u0000WEBPVP8 ')

test('raster images of an image answer become data URLs by their signature, in order, with their place', () => {
  expect(answerImages({ created: 1, data: [{ b64_json: png }, { url: 'https://example.com/a.png' }, { b64_json: jpeg }, { b64_json: webp }] })).toEqual([
    { index: 0, src: `data:image/png;base64,${png}` },
    { index: 2, src: `data:image/jpeg;base64,${jpeg}` },
    { index: 3, src: `data:image/webp;base64,${webp}` },
  ])
})

test('an SVG, bytes that are no image, text that is not base64 and other bodies show no thumbnail', () => {
  const svg = b64('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"></svg>')
  expect(answerImages({ data: [{ b64_json: svg }, { b64_json: b64('plain text') }, { b64_json: `${png}"><script>` }, { b64_json: 7 }] })).toEqual([])
  expect(answerImages({ choices: [] })).toEqual([])
  expect(answerImages('text')).toEqual([])
  expect(answerImages(undefined)).toEqual([])
  expect(answerImages({ data: Array.from({ length: 12 }, () => ({ b64_json: png })) })).toHaveLength(10)
})

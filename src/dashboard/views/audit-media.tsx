/** @jsxImportSource preact */
/**
 * @module What an audit entry holds of a body that is not JSON text: an upload's parts (name, file name, content
 * type, size, SHA-256; never the files' bytes), the images of an image answer as thumbnails (./media.ts), and a
 * binary answer (speech audio) by what it was. The audio's bytes are never kept, so there is nothing to play: the
 * view says so.
 */
import type { z } from 'zod'
import type { binaryBodySchema, uploadPartSchema } from '../../audit/schemas.ts'
import { formatBytes } from '../format.ts'
import { answerImages } from '../media.ts'

type UploadPart = z.infer<typeof uploadPartSchema>
type BinaryBody = z.infer<typeof binaryBodySchema>

export function UploadParts({ parts }: { parts: UploadPart[] }) {
  return (
    <div class="table-scroll">
      <table class="upload-parts">
        <caption>Request parts (multipart upload; the files' bytes are not kept)</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">File name</th>
            <th scope="col">Content type</th>
            <th scope="col">Size</th>
            <th scope="col">SHA-256</th>
          </tr>
        </thead>
        <tbody>
          {parts.map((part, i) => (
            <tr key={i}>
              <th scope="row">
                <code>{part.name}</code>
              </th>
              <td>{part.filename ?? <span class="muted">text field</span>}</td>
              <td>{part.content_type ?? '–'}</td>
              <td>{formatBytes(part.bytes)}</td>
              <td>
                <code class="digest">{part.sha256 || '–'}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

export function AnswerImages({ body }: { body: unknown }) {
  const images = answerImages(body)
  if (images.length === 0) return null
  return (
    <div class="answer-images" role="group" aria-label="Images in the answer">
      {images.map((image) => (
        <figure key={image.index}>
          <a href={image.src} download={`image-${image.index}`}>
            <img src={image.src} alt={`Answer data[${image.index}]`} loading="lazy" />
          </a>
          <figcaption>data[{image.index}]</figcaption>
        </figure>
      ))}
    </div>
  )
}

export function BinaryAnswer({ binary }: { binary: BinaryBody }) {
  return (
    <div class="binary-answer">
      <p>
        Response body: {binary.content_type || 'binary'}, {formatBytes(binary.bytes)}, SHA-256 <code class="digest">{binary.sha256}</code>
      </p>
      <p class="muted">Binary answers (speech audio) are recorded by type, size and SHA-256 only; the bytes are not kept, so they cannot be played here.</p>
    </div>
  )
}

import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { Format } from './format.js';

/**
 * The API's file resources (`GET /stock/file`) answer a document whose one big field is a file,
 * gzipped and base64-encoded: `{"stock": "<base64>", "mime": "application/x-gzip"}` or the same as
 * XML. This renders such a document as a stream: the file's text comes in pieces from `source`, goes
 * through gzip and base64, and leaves between the document's head and tail, so a file of any size
 * costs the process a few buffers, never the whole file. Base64 needs no escaping in either format.
 */
export function gzippedBase64Document(
  format: Format,
  field: string,
  mime: string,
  source: AsyncIterable<string>,
): Readable {
  const head =
    format === 'json'
      ? `{${JSON.stringify(field)}:"`
      : `<?xml version="1.0" encoding="UTF-8"?>\n<response><${field}>`;
  const tail =
    format === 'json'
      ? `",${JSON.stringify('mime')}:${JSON.stringify(mime)}}`
      : `</${field}><mime>${mime}</mime></response>`;
  const encoded = new Base64Encoder();
  const done = pipeline(Readable.from(source), createGzip(), encoded);
  async function* document() {
    yield head;
    for await (const piece of encoded) yield piece as string;
    await done;
    yield tail;
  }
  // An error half-way (the database went away) destroys the response: the client sees a cut
  // connection rather than a document that looks whole.
  done.catch(() => {});
  return Readable.from(document(), { objectMode: false });
}

/** Base64 of a byte stream, in pieces that are each valid base64 (multiples of 3 bytes). */
export class Base64Encoder extends Transform {
  private rest: Buffer = Buffer.alloc(0);

  constructor() {
    super({ readableObjectMode: true });
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    const bytes = this.rest.length > 0 ? Buffer.concat([this.rest, chunk]) : chunk;
    const usable = bytes.length - (bytes.length % 3);
    this.rest = bytes.subarray(usable);
    if (usable > 0) this.push(bytes.subarray(0, usable).toString('base64'));
    callback();
  }

  override _flush(callback: TransformCallback): void {
    if (this.rest.length > 0) this.push(this.rest.toString('base64'));
    callback();
  }
}

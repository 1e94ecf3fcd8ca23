import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, badRequest } from '../errors.js';
import { parseRequestXml, type XmlObject } from './xml.js';

/**
 * Request bodies are XML with root `request` (spec §1). A body sent as XML (`text/xml`,
 * `application/xml`, any charset) or with no Content-Type is parsed. A body declared as a form
 * (`application/x-www-form-urlencoded`, curl's default for a POST, or `multipart/form-data`) is
 * parsed too when it is XML: PHP clients send their request documents that way and the live
 * service answers them. Any other type (JSON, raw bytes, text) and a form that is no XML are 417,
 * as on the real API. Size is bounded by Fastify's bodyLimit (413 before the
 * body is read whole), and `Expect: 100-continue` on a body over 1,024 bytes is 417.
 */

export const EXPECT_LIMIT = 1024;

const XML_TYPES = ['text/xml', 'application/xml'];

/** The form types a client may declare by default (curl, PHP's curl extension) while sending XML. */
const FORM_TYPE = /^\s*(?:application\/x-www-form-urlencoded|multipart\/form-data)\s*(?:;|$)/i;

/**
 * Whether a form-typed body is the XML request document rather than a form: it starts, after an
 * optional byte order mark and white space, with `<`, which no form field name does (a form encoder
 * writes it as `%3C`). What follows is then read as XML, and its mistakes are the XML's 400s.
 */
function looksLikeXml(buffer: Buffer): boolean {
  let i = 0;
  if (buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf) i = 3;
  while (
    i < buffer.length &&
    (buffer[i] === 0x20 || buffer[i] === 0x09 || buffer[i] === 0x0a || buffer[i] === 0x0d)
  )
    i++;
  return buffer[i] === 0x3c; // <
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The charset is the Content-Type's, else the XML declaration's (as an XML parser would read it),
 * else UTF-8. Bytes that are not valid in it are a 400: replacing them silently would store a
 * client's Latin-1 text as question marks.
 */
function decode(buffer: Buffer, contentType: string | undefined): string {
  const declared =
    /charset\s*=\s*"?([\w-]+)"?/i.exec(contentType ?? '')?.[1] ??
    /^(?:\uFEFF)?<\?xml[^>]*?\sencoding\s*=\s*["']([\w-]+)["']/.exec(
      buffer.subarray(0, 200).toString('latin1'),
    )?.[1];
  const charset = declared?.toLowerCase() ?? 'utf-8';
  let decoder = UTF8;
  if (charset !== 'utf-8' && charset !== 'utf8') {
    try {
      decoder = new TextDecoder(charset, { fatal: true });
    } catch {
      throw new ApiError(415, `The charset "${charset}" is not supported; send UTF-8.`);
    }
  }
  try {
    return decoder.decode(buffer);
  } catch {
    throw badRequest(
      `The request body is not valid ${charset === 'utf8' ? 'utf-8' : charset}: declare the charset it is written in (Content-Type: application/xml; charset=…) or send UTF-8.`,
    );
  }
}

function parse(buffer: Buffer, contentType: string | undefined): XmlObject | undefined {
  if (buffer.length === 0) return undefined;
  const text = decode(buffer, contentType);
  if (text.trim() === '') return undefined;
  return parseRequestXml(text);
}

export function installBodyParsing(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(XML_TYPES, { parseAs: 'buffer' }, (request, body, done) => {
    request.logBody = body as Buffer; // kept by reference; the request log reads it on a failure only
    try {
      done(null, parse(body as Buffer, request.headers['content-type']));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (request, body, done) => {
    request.logBody = body as Buffer;
    const type = request.headers['content-type'];
    const form = type !== undefined && FORM_TYPE.test(type);
    if (type === undefined || (form && looksLikeXml(body as Buffer))) {
      try {
        done(null, parse(body as Buffer, type));
      } catch (err) {
        done(err as Error, undefined);
      }
      return;
    }
    done(
      new ApiError(
        417,
        form
          ? `Request bodies must be XML: this body declared as "${type}" is a form, not an XML document <request>…</request>. Send the XML (with Content-Type application/xml, or as it is).`
          : `Request bodies must be XML with Content-Type text/xml or application/xml (got "${type}").`,
      ),
      undefined,
    );
  });
}

/**
 * The real API refuses `Expect: 100-continue` on bodies over 1,024 bytes. Node answers
 * `100 Continue` on its own unless the server handles 'checkContinue'; `app.ts` wires that event so
 * the 417 goes out before the client sends the body.
 */
export function checkExpect(request: FastifyRequest): void {
  const expect = request.headers.expect;
  // An empty Expect: header is what docs/api.md (and the real API's documentation) tells clients to
  // send with a large body; it expects nothing.
  if (!expect || expect.trim() === '') return;
  if (!/^\s*100-continue\s*$/i.test(expect)) {
    throw new ApiError(
      417,
      `The expectation "${expect}" cannot be met: the only one understood is 100-continue. Send no Expect header, or an empty one.`,
    );
  }
  const declared = request.headers['content-length'];
  if (declared === undefined && request.headers['transfer-encoding'] === undefined) return; // no body
  const length = Number(declared ?? Number.NaN);
  if (Number.isNaN(length) || length > EXPECT_LIMIT) {
    throw new ApiError(
      417,
      `A body over ${EXPECT_LIMIT} bytes must not be sent with "Expect: ${expect}": send an empty Expect: header instead.`,
    );
  }
}

/** A route that needs a body calls this: a missing or empty body is a 400 naming what was expected. */
export function requireBody(body: XmlObject | undefined, what: string): XmlObject {
  if (!body || Object.keys(body).length === 0) {
    throw badRequest(`This request needs an XML body <request>${what}</request>.`);
  }
  return body;
}

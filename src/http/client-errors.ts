import type { Socket } from 'node:net';
import { errorBody, STATUS_TEXT } from '../errors.js';
import { STATIC_HEADERS } from './cors.js';
import { CONTENT_TYPES, type Format } from './format.js';
import { toXml } from './xml.js';

/** The methods a path takes, and whether it is one of the website's pages (they answer in HTML). */
export type PathMethods = (url: string) => { allowed: string; page: boolean } | undefined;

/**
 * Node's HTTP parser refuses some requests before Fastify sees them (a control character in a header,
 * headers over the size bound, a request that never finishes, a method token it does not know).
 * They still get the API's error body and its CORS headers; in XML, because the path that would
 * choose JSON was never read. A method token Node does not know (`FOO /x`) is answered as any
 * method the path does not take: 405 with `Allow` when the path takes others, else 404, in HTML
 * for the website's pages. `headers` go on every answer (HSTS).
 */
export function clientErrorHandlerFor(headers: Record<string, string>, methodsOf: PathMethods) {
  return (err: NodeJS.ErrnoException, socket: Socket): void => {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    let status: number;
    let description: string;
    if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      status = 408;
      description = 'The request was not received completely in time.';
    } else if (err.code === 'HPE_HEADER_OVERFLOW') {
      status = 431;
      description = 'The request headers are larger than the server accepts (16 KiB in all).';
    } else if (err.code === 'HPE_INVALID_METHOD') {
      const line = /^([!#$%&'*+.^_`|~\w-]{1,64}) (\/[^\s]{0,8000}) HTTP\/1\.[01]\r?\n/.exec(
        rawPacketOf(err)?.toString('latin1') ?? '',
      );
      if (line) {
        if (socket.writable) socket.end(unknownMethodAnswer(line[1]!, line[2]!, headers, methodsOf));
        else socket.destroy(err);
        return;
      }
      status = 400;
      description = 'The request line is malformed.';
    } else {
      status = 400;
      description =
        'The request is not valid HTTP (a header holds a character HTTP forbids, or the request line is malformed).';
    }
    if (socket.writable) socket.end(rawErrorResponse(status, description, headers));
    else socket.destroy(err);
  };
}

/** What Node's parser had read of the refused request. */
const rawPacketOf = (err: unknown): Buffer | undefined => {
  const raw = (err as { rawPacket?: unknown }).rawPacket;
  return Buffer.isBuffer(raw) ? raw : undefined;
};

function unknownMethodAnswer(
  method: string,
  url: string,
  headers: Record<string, string>,
  methodsOf: PathMethods,
): Buffer {
  const found = methodsOf(url);
  const path = url.split('?')[0]!;
  const page = found ? found.page : !/^\/ws(?:\/|$)/.test(path);
  const format = page ? 'html' : /\/output\.json(\/|$)/.test(path) ? 'json' : 'xml';
  if (!found) {
    return rawErrorResponse(
      404,
      page ? 'There is no page at this address.' : `There is no resource at ${method} ${path}.`,
      headers,
      format,
    );
  }
  const allow: Record<string, string> = page
    ? { Allow: found.allowed }
    : { Allow: found.allowed, 'Access-Control-Allow-Methods': found.allowed };
  return rawErrorResponse(
    405,
    `${method} is not allowed ${page ? 'on this page' : 'on this resource'}; it accepts ${found.allowed}.`,
    { ...headers, ...allow },
    format,
  );
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * A whole HTTP/1.1 error answer as bytes, for a socket Fastify never got a request from: the API's
 * error body (XML unless the format is known to be JSON) with the CORS headers, or a short HTML
 * page for the website's paths, and `Connection: close`.
 */
export function rawErrorResponse(
  status: number,
  description: string,
  headers: Record<string, string> = {},
  format: Format | 'html' = 'xml',
): Buffer {
  const title = `${status} ${STATUS_TEXT[status]}`;
  let body: Buffer;
  let all: Record<string, string>;
  let type: string;
  if (format === 'html') {
    body = Buffer.from(
      `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1><p>${escapeHtml(description)}</p></body></html>\n`,
    );
    all = { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff', ...headers };
    type = 'text/html; charset=utf-8';
  } else {
    const tree = errorBody(status, description);
    body = Buffer.from(format === 'json' ? JSON.stringify(tree) : toXml(tree));
    all = { ...STATIC_HEADERS, 'Access-Control-Allow-Methods': 'OPTIONS', ...headers };
    type = CONTENT_TYPES[format];
  }
  const head = [
    `HTTP/1.1 ${title}`,
    `Content-Type: ${type}`,
    `Content-Length: ${body.length}`,
    ...Object.entries(all).map(([k, v]) => `${k}: ${v}`),
    'Connection: close',
  ];
  return Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`), body]);
}

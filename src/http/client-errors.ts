import type { Socket } from 'node:net';
import { errorBody, STATUS_TEXT } from '../errors.js';
import { STATIC_HEADERS } from './cors.js';
import { CONTENT_TYPES, type Format } from './format.js';
import { toXml } from './xml.js';

/**
 * Node's HTTP parser refuses some requests before Fastify sees them (a control character in a header,
 * headers over the size bound, a request that never finishes). They still get the API's error body
 * and its CORS headers; in XML, because the path that would choose JSON was never read.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  let status: number;
  let description: string;
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    status = 408;
    description = 'The request was not received completely in time.';
  } else if (err.code === 'HPE_HEADER_OVERFLOW') {
    status = 431;
    description = 'The request headers are larger than the server accepts (16 KiB in all).';
  } else {
    status = 400;
    description =
      'The request is not valid HTTP (a header holds a character HTTP forbids, or the request line is malformed).';
  }
  if (socket.writable) socket.end(rawErrorResponse(status, description));
  else socket.destroy(err);
}

/**
 * A whole HTTP/1.1 error answer as bytes, for a socket Fastify never got a request from: the API's
 * error body (XML unless the format is known to be JSON), the CORS headers, and `Connection: close`.
 */
export function rawErrorResponse(
  status: number,
  description: string,
  headers: Record<string, string> = {},
  format: Format = 'xml',
): Buffer {
  const tree = errorBody(status, description);
  const body = Buffer.from(format === 'json' ? JSON.stringify(tree) : toXml(tree));
  const all: Record<string, string> = {
    ...STATIC_HEADERS,
    'Access-Control-Allow-Methods': 'OPTIONS',
    ...headers,
  };
  const head = [
    `HTTP/1.1 ${status} ${STATUS_TEXT[status]}`,
    `Content-Type: ${CONTENT_TYPES[format]}`,
    `Content-Length: ${body.length}`,
    ...Object.entries(all).map(([k, v]) => `${k}: ${v}`),
    'Connection: close',
  ];
  return Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`), body]);
}

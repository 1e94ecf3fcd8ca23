import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { BASE_STRING_HEADER } from '../auth/authenticate.js';
import { BODY_HEAD_BYTES, type RequestLogRecorder } from '../domain/request-log.js';
import type { Services } from '../services.js';
import { publicOrigin } from './origin.js';

/**
 * The request log's wire side (docs/testing-your-client.md, "The request log"). What a request leaves for it is a few
 * fields on the request object, set where the information is at hand anyway (authentication knows
 * whose request it is, the body parser has the bytes, the error renderer the code and the body);
 * the `onResponse` hook, after the answer has gone out, turns them into a row for the recorder's
 * buffer. Nothing here waits for the database.
 */

declare module 'fastify' {
  interface FastifyRequest {
    /** Whose log the request goes to: the user it acts for, else the app's or token's owner; 0: none. */
    logUser: number;
    logApp: number;
    /** The `internal_error_code` of an error answer. */
    logErrorCode: string | null;
    /** The request body as received (only read when the answer is a failure). */
    logBody: Buffer | null;
    /** The error body sent (answers of 400 and above). */
    logResponse: string | null;
    /** Sandbox: the live host (`https://…`) the signature verified over; null: the server's own URL. */
    logSignedOver: string | null;
  }
}

/** Decorates the request fields (so every request object has one shape) and adds the hook. */
export function installRequestLog(app: FastifyInstance, services: Services): void {
  app.decorateRequest('logUser', 0);
  app.decorateRequest('logApp', 0);
  app.decorateRequest('logErrorCode', null);
  app.decorateRequest('logBody', null);
  app.decorateRequest('logResponse', null);
  app.decorateRequest('logSignedOver', null);
  const recorder = services.requestLog;
  if (!recorder) return;
  app.addHook('onResponse', (request, reply, done) => {
    if (request.logUser !== 0) record(recorder, services, request, reply);
    done();
  });
}

/** Longest path or query kept (a URL can carry 16 KB of headers' worth). */
const MAX_URL_PART = 2048;

function record(
  recorder: RequestLogRecorder,
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  const url = request.originalUrl;
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const query = q === -1 ? '' : withoutSignatureParam(url.slice(q + 1));
  const status = reply.statusCode;
  const elapsed = reply.elapsedTime;
  const failed = status >= 400;
  let baseString: string | null = null;
  if (failed && services.config.mode === 'sandbox') {
    const header = reply.getHeader(BASE_STRING_HEADER);
    if (typeof header === 'string') baseString = header;
  }
  recorder.add({
    idUser: request.logUser,
    idApp: request.logApp === 0 ? null : request.logApp,
    time: Math.round(services.wallClock.now() - elapsed),
    method: request.method,
    path: path.slice(0, MAX_URL_PART),
    query: query.slice(0, MAX_URL_PART),
    status,
    durationMicros: Math.round(elapsed * 1000),
    internalErrorCode: request.logErrorCode,
    origin: failed ? addressedAs(request, services) : null,
    authorization:
      failed && typeof request.headers.authorization === 'string'
        ? withoutSignature(request.headers.authorization).slice(0, BODY_HEAD_BYTES)
        : null,
    requestBody: failed && request.logBody ? bodyHead(request.logBody) : null,
    responseBody: failed && request.logResponse !== null ? head(Buffer.from(request.logResponse)) : null,
    baseString,
    signedOver: request.logSignedOver,
  });
}

/** What a failed request's signature was checked against first: a live host it addressed, else the server's URL. */
function addressedAs(request: FastifyRequest, services: Services): string {
  const own = publicOrigin(request, services.config);
  return own.live ?? own.origin;
}

/**
 * The first 4 KB as text, without NUL characters: PostgreSQL refuses them in text columns, and one
 * such row would cost the whole batch it is written with.
 */
function head(bytes: Buffer): string {
  const text = bytes.subarray(0, BODY_HEAD_BYTES).toString('utf8');
  return text.includes('\u0000') ? text.replaceAll('\u0000', '\uFFFD') : text;
}

/** The first 4 KB, as text; a request token being exchanged (`POST /access`) is a secret. */
function bodyHead(body: Buffer): string {
  return head(body).replace(/(<request_token>)[^<]*(<\/request_token>|$)/g, '$1[not logged]$2');
}

/** The Authorization header without its `oauth_signature` (a signature is never stored). */
export function withoutSignature(header: string): string {
  return header
    .replace(/(^|[\s,])oauth(?:_|%5F)signature\s*=\s*(?:"[^"]*"|[^\s,]*)/gi, '$1')
    .replace(/,(\s*,)+/g, ',')
    .replace(/,\s*$/, '')
    .replace(/^(\s*OAuth)\s*,\s*/i, '$1 ');
}

/** A query without any `oauth_signature` parameter. */
export function withoutSignatureParam(query: string): string {
  if (!/oauth(?:_|%5F)signature/i.test(query)) return query;
  return query
    .split('&')
    .filter((p) => !/^oauth_signature(=|$)/i.test(decodeSafely(p.split('=')[0]!)))
    .join('&');
}

function decodeSafely(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

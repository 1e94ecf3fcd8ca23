import { STATUS_CODES } from 'node:http';
import type { FastifyReply, FastifyRequest, onSendHookHandler } from 'fastify';
import { type FaultBody, takeFaultHit } from '../domain/faults.js';
import { ApiError } from '../errors.js';
import { BerlinDays } from '../limits/berlin-day.js';
import { concurrentRequest } from '../limits/concurrency.js';
import { groupOf } from '../limits/groups.js';
import { setLimitHeaders } from '../limits/headers.js';
import { dailyQuota, dailyQuotaReached, hasQuota } from '../limits/quota.js';
import { minuteOf, restOfMinute, slowDown } from '../limits/rate.js';
import type { Services } from '../services.js';
import type { Fault } from '../store/schema.js';
import { findUserById } from '../store/users.js';
import type { SandboxControl } from './control.js';
import { MOVED_BODY } from './live-hosts.js';
import type { RouteConfig, RouteGuard } from './routing.js';

/**
 * Applies the injected faults (src/domain/faults.ts) to a route's requests: right after
 * authentication (the answer depends on the app, as the real one does: a dedicated app's 429 is its
 * daily quota, with its limit headers; and a fault may be narrowed to one app or user) and before
 * the limits count the request, the body is read or the route runs, so a faulted request with a
 * status changes nothing. A fault that only spoils the body lets the route run: the answer breaks
 * on its way back, after the work was done, as a connection that fails mid-answer does.
 */

/** The live service's words for the transient 400 (reference §1, `/account/messages/find`, 2026). */
export const UNAVAILABLE_DESCRIPTION = 'This feature is currently unavailable';

declare module 'fastify' {
  interface FastifyRequest {
    /** What an injected fault does to this request's answer body (sandbox). */
    faultBody?: FaultBody;
    /** The injected fault that hit this request (sandbox): its answer is not the API's own. */
    injectedFault?: number;
  }
}

const days = new BerlinDays();

export function faultHook(services: Services, control: SandboxControl, route: RouteConfig): RouteGuard {
  const group = groupOf(route.routeKey ?? '') ?? 'api';
  // No fault in force (nearly always): nothing to wait for, so no promise either.
  return (request, reply) => (control.rules.length === 0 ? undefined : apply(request, reply));
  async function apply(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const path = request.url.split('?')[0]!.replace(/^\/ws\/v2\.0(?:\/output\.(?:json|xml))?/, '');
    const now = services.clock.now();
    let fault: Fault | undefined;
    // The first fault in force that matches and hits; a counted one must still win one of its
    // remaining hits in the database (shared by every process), else the next fault is tried.
    for (const rule of control.rules) {
      if (!rule.matches(request.method, path, request.auth, now) || !rule.hits()) continue;
      if (rule.fault.remaining !== null && !(await takeFaultHit(services, rule.fault.idFault))) {
        rule.spent = true;
        continue;
      }
      fault = rule.fault;
      break;
    }
    if (!fault) return;
    request.injectedFault = fault.idFault;
    services.log.info(
      {
        reqId: request.id,
        idFault: fault.idFault,
        method: request.method,
        path,
        status: fault.status,
        latencyMs: fault.latencyMs,
        drop: fault.drop === 1,
        body: fault.body,
      },
      'injected fault',
    );
    if (fault.latencyMs > 0) await new Promise((r) => setTimeout(r, fault.latencyMs));
    if (fault.drop === 1) {
      // No answer at all, as when a proxy or the service gives up on the connection.
      reply.hijack();
      request.raw.socket.destroy();
      return;
    }
    if (fault.body !== null) request.faultBody = fault.body as FaultBody;
    if (fault.status === null) return; // a delay or a spoiled body only: the request goes on
    const error = await faultError(fault.status, request, reply);
    throw new ApiError(error.status, fault.description ?? error.message, {
      code: error.code,
      headers: error.headers,
    });
  }

  /** The error the live service answers with this status, with the headers that go with it. */
  async function faultError(status: number, request: FastifyRequest, reply: FastifyReply): Promise<ApiError> {
    const now = services.clock.now();
    const auth = request.auth;
    let quota: number | undefined;
    if (auth && hasQuota(auth.kind)) {
      const owner = await findUserById(services.database.db, auth.idOwner);
      quota = dailyQuota(services.config, owner?.isCommercial ?? 0);
    }
    let error: ApiError;
    const path = request.url.split('?')[0];
    switch (status) {
      case 503:
        error = slowDown(restOfMinute(now));
        break;
      case 429:
        error =
          quota !== undefined ? dailyQuotaReached(quota, days.at(now).end, now) : concurrentRequest(group);
        break;
      case 500:
        error = new ApiError(
          500,
          `Internal server error. The server log has the details under request id ${request.id}.`,
        );
        break;
      case 400:
        error = new ApiError(400, UNAVAILABLE_DESCRIPTION);
        break;
      // The server's own words for the condition each status stands for.
      case 401:
        error = new ApiError(401, 'Invalid signature.', { code: 'invalid_signature' });
        break;
      case 403:
        error = new ApiError(403, 'Access to the API is blocked for this account.', {
          code: 'access_blocked',
        });
        break;
      case 404:
        error = new ApiError(404, `There is no resource at ${request.method} ${path}.`);
        break;
      case 405:
        error = new ApiError(
          405,
          `${request.method} is not allowed on this resource; it accepts ${route.allowedMethods}.`,
          { headers: { Allow: route.allowedMethods } },
        );
        break;
      case 410:
        error = new ApiError(410, MOVED_BODY);
        break;
      case 412:
        error = new ApiError(
          412,
          'This change is not possible in the current state; read it again and retry.',
        );
        break;
      case 413:
        error = new ApiError(413, `The request body is larger than ${services.config.bodyLimit} bytes.`);
        break;
      case 502:
        error = new ApiError(502, 'Bad Gateway: the service behind the gateway gave no valid answer.');
        break;
      case 504:
        error = new ApiError(504, 'Gateway Timeout: the service behind the gateway did not answer in time.');
        break;
      default:
        error = new ApiError(
          status,
          STATUS_CODES[status] ?? (status < 500 ? 'Client Error' : 'Server Error'),
        );
    }
    // Every answer to an app with a quota carries the limit headers (with the limits off, none
    // does, but a quota refusal still shows them: a client asking for one tests how it reads them).
    // At a quota refusal the count stands at the maximum; otherwise it is the app's own, unchanged.
    if (quota !== undefined && (status === 429 || services.config.limitsEnabled)) {
      const count =
        status === 429
          ? quota
          : (await services.limits.usage(auth!.idUser ?? auth!.idOwner, days.at(now).key, minuteOf(now)))
              .dayCount;
      setLimitHeaders(reply, count, quota);
    }
    return error;
  }
}

/**
 * Spoils the body of an answer a fault marked (sandbox; one property read on every other answer):
 * `truncated` declares the whole body's Content-Length, sends its first half and closes the
 * connection; `malformed` sends the first half of the document as the whole answer (a matching
 * Content-Length, so the transfer succeeds and the XML or JSON parser is what fails). Empty and
 * streamed answers are left alone.
 */
export const spoilBodyHook: onSendHookHandler = (request, reply, payload, done) => {
  const spoil = request.faultBody;
  if (spoil === undefined || (typeof payload !== 'string' && !Buffer.isBuffer(payload))) {
    done(null, payload);
    return;
  }
  const bytes = Buffer.isBuffer(payload) ? payload : Buffer.from(payload);
  if (bytes.length < 2) {
    done(null, payload);
    return;
  }
  const half = bytes.subarray(0, Math.floor(bytes.length / 2));
  if (spoil === 'malformed') {
    reply.header('content-length', half.length);
    done(null, half);
    return;
  }
  // The answer leaves here: the whole length declared, half the bytes written, then the connection
  // closed once they reached the socket. Fastify's own send never runs (the reply is hijacked), so
  // `done` is not called.
  reply.hijack();
  const res = reply.raw;
  const headers = { ...reply.getHeaders(), 'content-length': bytes.length };
  res.writeHead(reply.statusCode, headers as Record<string, string | number | string[]>);
  res.write(half, () => setTimeout(() => res.destroy(), 20));
};

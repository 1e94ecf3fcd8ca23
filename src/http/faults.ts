import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import { BerlinDays } from '../limits/berlin-day.js';
import { concurrentRequest } from '../limits/concurrency.js';
import { groupOf } from '../limits/groups.js';
import { setLimitHeaders } from '../limits/headers.js';
import { dailyQuota, dailyQuotaReached, hasQuota } from '../limits/quota.js';
import { minuteOf, restOfMinute, slowDown } from '../limits/rate.js';
import type { Services } from '../services.js';
import { findUserById } from '../store/users.js';
import type { SandboxControl } from './control.js';
import type { RouteConfig, RouteGuard } from './routing.js';

/**
 * Applies the injected faults (src/domain/faults.ts) to a route's requests: right after
 * authentication (the answer depends on the app, as the real one does: a dedicated app's 429 is its
 * daily quota, with its limit headers) and before the limits count the request, the body is read
 * or the route runs, so a faulted request changes nothing.
 */

/** The live service's words for the transient 400 (reference §1, `/account/messages/find`, 2026). */
export const UNAVAILABLE_DESCRIPTION = 'This feature is currently unavailable';

const days = new BerlinDays();

export function faultHook(services: Services, control: SandboxControl, route: RouteConfig): RouteGuard {
  const group = groupOf(route.routeKey ?? '') ?? 'api';
  // No fault in force (nearly always): nothing to wait for, so no promise either.
  return (request, reply) => (control.rules.length === 0 ? undefined : apply(request, reply));
  async function apply(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const path = request.url.split('?')[0]!.replace(/^\/ws\/v2\.0/, '');
    const rule = control.match(request.method, path);
    if (!rule || !rule.hits()) return;
    const { fault } = rule;
    services.log.info(
      {
        reqId: request.id,
        idFault: fault.idFault,
        method: request.method,
        path,
        status: fault.status,
        latencyMs: fault.latencyMs,
        drop: fault.drop === 1,
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
    if (fault.status === null) return; // a delay only: the request goes on
    const now = services.clock.now();
    const auth = request.auth;
    let quota: number | undefined;
    if (auth && hasQuota(auth.kind)) {
      const owner = await findUserById(services.database.db, auth.idOwner);
      quota = dailyQuota(services.config, owner?.isCommercial ?? 0);
    }
    let error: ApiError;
    if (fault.status === 503) {
      error = slowDown(restOfMinute(now));
    } else if (fault.status === 429) {
      error =
        quota !== undefined ? dailyQuotaReached(quota, days.at(now).end, now) : concurrentRequest(group);
    } else if (fault.status === 500) {
      error = new ApiError(
        500,
        `Internal server error. The server log has the details under request id ${request.id}.`,
      );
    } else {
      error = new ApiError(400, UNAVAILABLE_DESCRIPTION);
    }
    // Every answer to an app with a quota carries the limit headers (with the limits off, none
    // does, but a quota refusal still shows them: a client asking for one tests how it reads them).
    // At a quota refusal the count stands at the maximum; otherwise it is the app's own, unchanged.
    if (quota !== undefined && (fault.status === 429 || services.config.limitsEnabled)) {
      const count =
        fault.status === 429
          ? quota
          : (await services.limits.usage(auth!.idUser ?? auth!.idOwner, days.at(now).key, minuteOf(now)))
              .dayCount;
      setLimitHeaders(reply, count, quota);
    }
    throw new ApiError(error.status, fault.description ?? error.message, {
      code: error.code,
      headers: error.headers,
    });
  }
}

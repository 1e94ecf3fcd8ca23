import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.js';
import type { Services } from '../services.js';
import { findUserByIdOrName } from '../store/users.js';
import { resetUsage, usageReport } from './usage.js';

/**
 * The operator's window on the limit counters of a running server, for `cardbazaar limits show` and
 * `limits reset` when the counters live in that server's memory (no REDIS_URL): another process
 * cannot read them any other way. With Redis the CLI reads Redis directly and needs none of this.
 *
 * It is not part of the API and has no OAuth: a request must carry
 * `X-Cardbazaar-Operator: <unix seconds>.<HMAC-SHA256 of "METHOD PATH SECONDS" under SECRET_KEY>`,
 * which only someone holding the server key (who can derive every credential anyway) can make, and
 * only for 60 seconds.
 */
export const OPERATOR_PREFIX = '/_cardbazaar/limits/';
export const OPERATOR_HEADER = 'X-Cardbazaar-Operator';
const WINDOW_SECONDS = 60;

function signature(serverKey: string, method: string, path: string, seconds: string): string {
  return createHmac('sha256', serverKey).update(`operator ${method} ${path} ${seconds}`).digest('hex');
}

/** The header value for one operator request (made by the CLI). */
export function operatorHeader(serverKey: string, method: string, path: string, nowMs: number): string {
  const seconds = String(Math.floor(nowMs / 1000));
  return `${seconds}.${signature(serverKey, method, path, seconds)}`;
}

function verify(services: Services, method: string, path: string, header: string | undefined): boolean {
  const m = /^(\d{1,12})\.([0-9a-f]{64})$/.exec(header ?? '');
  if (!m) return false;
  const [, seconds, given] = m;
  if (Math.abs(Math.floor(services.wallClock.now() / 1000) - Number(seconds)) > WINDOW_SECONDS) return false;
  const expected = signature(services.serverKey, method, path, seconds!);
  return timingSafeEqual(Buffer.from(given!, 'hex'), Buffer.from(expected, 'hex'));
}

export function installLimitsOperator(app: FastifyInstance, services: Services): void {
  app.route({
    method: ['GET', 'DELETE'],
    url: `${OPERATOR_PREFIX}:user`,
    handler: async (request, reply) => {
      const path = request.url.split('?')[0]!;
      const json = (status: number, body: unknown) =>
        reply.code(status).type('application/json; charset=utf-8').send(JSON.stringify(body));
      if (!verify(services, request.method, path, request.headers[OPERATOR_HEADER.toLowerCase()] as string)) {
        return json(401, {
          error: `${OPERATOR_HEADER} is missing, stale or not signed with this server's key.`,
        });
      }
      const name = (request.params as { user: string }).user;
      const user = await findUserByIdOrName(services.database.db, name);
      if (!user) return json(404, { error: `There is no user "${name}".` });
      try {
        return json(
          200,
          request.method === 'DELETE' ? await resetUsage(services, user) : await usageReport(services, user),
        );
      } catch (err) {
        if (err instanceof ApiError) return json(err.status, { error: err.message });
        throw err;
      }
    },
  });
}

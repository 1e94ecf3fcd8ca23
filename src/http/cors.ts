import type { FastifyInstance } from 'fastify';
import type { RouteConfig } from './routing.js';

/**
 * CORS headers on every response, errors included (spec §1), so browser-based widgets can call the
 * API and read the limit and pagination headers.
 */
const STATIC_HEADERS: Record<string, string> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Headers': 'Content-Type, Authorization, X-Requested-With',
  'Access-Control-Expose-Headers': 'Content-Range, Range, X-Request-Limit-Count, X-Request-Limit-Max',
  'Access-Control-Max-Age': '86400',
};

export function installCors(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    reply.headers(STATIC_HEADERS);
    const config = request.routeOptions.config as Partial<RouteConfig> | undefined;
    reply.header('Access-Control-Allow-Methods', config?.allowedMethods ?? 'OPTIONS');
    return payload;
  });
}

import type { FastifyReply } from 'fastify';

/**
 * CORS headers on every response, errors included (spec §1), so browser-based widgets can call the
 * API and read the limit and pagination headers.
 */
export const STATIC_HEADERS: Readonly<Record<string, string>> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Headers': 'Content-Type, Authorization, X-Requested-With',
  'Access-Control-Expose-Headers': 'Content-Range, Range, X-Request-Limit-Count, X-Request-Limit-Max',
  'Access-Control-Max-Age': '86400',
};

/**
 * Set first thing on every request (the application's first hook, `src/app.ts`), so they survive
 * into any answer, errors included; a resource's own route hook then replaces
 * `Access-Control-Allow-Methods` with the methods it accepts. Also for answers given before any
 * hook runs (a URL the router cannot even decode).
 */
export function setCorsHeaders(reply: FastifyReply): void {
  for (let i = 0; i < STATIC_PAIRS.length; i += 2) reply.header(STATIC_PAIRS[i]!, STATIC_PAIRS[i + 1]);
  reply.header(ALLOW_METHODS, 'OPTIONS');
}

/**
 * The names as Fastify keeps them (it lowercases every name it is given, which for a name already in
 * lowercase gives back the very string, one V8 keeps interned: no new key to look up on every request).
 */
export const ALLOW_METHODS = 'access-control-allow-methods';
const STATIC_PAIRS: readonly string[] = Object.entries(STATIC_HEADERS).flatMap(([name, value]) => [
  name.toLowerCase(),
  value,
]);

import type { FastifyReply } from 'fastify';

/**
 * The headers clients read their quota from (spec §8, reference §5): on every response to an app
 * with a quota, successes and refusals alike; never on responses to apps without one.
 */
export const LIMIT_COUNT_HEADER = 'X-Request-Limit-Count';
export const LIMIT_MAX_HEADER = 'X-Request-Limit-Max';

/** `count`: requests counted since the last reset (this one included when it was counted). */
export function setLimitHeaders(reply: FastifyReply, count: number, max: number): void {
  // Lowercase, as Fastify keeps them: no new name for it to lowercase on every answer.
  reply.header('x-request-limit-count', String(count));
  reply.header('x-request-limit-max', String(max));
}

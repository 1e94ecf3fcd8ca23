import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';

/**
 * "One request at a time per restricted group, evaluated per IP" (spec §8): a request of a
 * restricted group takes the group's place for its client IP (in the limit store, so instances
 * sharing Redis share the places) and gives it back when it ends, in whatever way it ends.
 */

// Tokens tell one holder from the next (a release must not free a place that expired and was taken
// again): a per-process random prefix and a counter, unique across instances without randomness per
// request.
const TOKEN_PREFIX = randomBytes(6).toString('hex');
let tokenCounter = 0;
export const nextLockToken = () => `${TOKEN_PREFIX}:${++tokenCounter}`;

/**
 * Calls `release` once when the response is finished or the connection is gone: Node emits 'close'
 * on the response in both cases (answered, failed, client aborted or socket closed), so one listener
 * covers them all. The place's TTL in the store is the backstop should even that be missed.
 */
export function releaseWhenDone(request: FastifyRequest, reply: FastifyReply, release: () => void): void {
  let released = false;
  const once = () => {
    if (released) return;
    released = true;
    release();
  };
  reply.raw.once('close', once);
  // The client may have gone while the place was being taken: 'close' has then been emitted already.
  if (reply.raw.destroyed || request.raw.socket?.destroyed) once();
}

export function concurrentRequest(group: string): ApiError {
  return new ApiError(
    429,
    `Another request of the group "${group}" from your address is still being processed; these requests are answered one at a time. Retry after it has finished.`,
    { code: 'concurrent_request', headers: { 'Retry-After': '1' } },
  );
}

import { ApiError } from '../errors.js';

/**
 * The per-minute rate (spec §8: 600 requests a minute → 503 "Slow Down"), counted per app token
 * and user in fixed windows of one clock minute: every instance agrees on the window from the time
 * alone, and the counter of a past minute is simply never read again.
 */
export const MINUTE_MS = 60_000;

/** The minute an instant falls in (minutes since the epoch). */
export const minuteOf = (epochMs: number) => Math.floor(epochMs / MINUTE_MS);

/** Milliseconds from an instant to the end of its minute. */
export const restOfMinute = (epochMs: number) => (minuteOf(epochMs) + 1) * MINUTE_MS - epochMs;

/** Seconds for Retry-After: whole seconds, at least 1, never before the window really ends. */
export const retryAfterSeconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/**
 * The refusal as spec §7 words it: the description is exactly "Slow Down", which clients may match
 * whole; how long to wait is in Retry-After, the limit in docs/api.md.
 */
export function slowDown(retryAfterMs: number): ApiError {
  return new ApiError(503, 'Slow Down', {
    code: 'rate_limited',
    headers: { 'Retry-After': String(retryAfterSeconds(retryAfterMs)) },
  });
}

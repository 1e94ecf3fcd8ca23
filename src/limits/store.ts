import { ApiError } from '../errors.js';

/**
 * Where the limit counters and concurrency places live: process memory for one instance, Redis for
 * several behind one load balancer. Both implementations pass `test/limits-store.test.ts`.
 *
 * Every request is one `charge`: all its limits are checked and, only if none refuses, all its
 * counters are incremented and its concurrency place taken, atomically. So a refused request
 * spends nothing (no daily budget for a request the minute limit refused, no minute budget for one
 * the quota refused) — the trap of union limiters, which charge every member even when one refuses.
 */
export interface LimitStore {
  charge(c: Charge): Promise<ChargeResult>;
  /**
   * `charge` answered at once, for a store that needs no I/O (process memory): the limits hook then
   * costs a request no promise and no turn of the microtask queue.
   */
  chargeNow?(c: Charge): ChargeResult;
  /** Frees a concurrency place, only if it is still held by this token. */
  release(lockKey: string, token: string): Promise<void>;
  /** A user's counters for the operator (`cardbazaar limits show`). */
  usage(idUser: number, day: string, minute: number): Promise<Usage>;
  /** Clears every counter of a user (`cardbazaar limits reset`), minute and day alike. */
  reset(idUser: number): Promise<void>;
  /**
   * Counts one attempt under each key (a sign-in: per username and per address), each in a window of
   * `windowMs` that starts with its first attempt. When any key already has its `max` attempts in
   * its window, nothing is counted and the answer says how long until that window ends. Atomic, so
   * parallel attempts cannot slip past the limit, and shared by instances with Redis.
   */
  attempt(keys: readonly AttemptKey[], windowMs: number): Promise<AttemptResult>;
  /** Takes one attempt back (a sign-in that succeeded), or all of a key's with `all`. */
  forgetAttempt(key: string, all?: boolean): Promise<void>;
  /** The attempts a key holds in its current window (0 when it has none). */
  countAttempts(key: string): Promise<number>;
  close(): Promise<void>;
}

export interface AttemptKey {
  key: string;
  max: number;
}

export interface AttemptResult {
  allowed: boolean;
  /** When refused: milliseconds until the refusing key's window ends. */
  retryAfterMs: number;
}

export interface Charge {
  /** Whose counters: the user the request acts for (an app's owner when it acts for nobody). */
  idUser: number;
  /** The app token; the per-minute rate is counted per app and user. */
  idApp: number;
  /** The rate window: the minute since the epoch (marketplace clock). */
  minute: number;
  rateMax: number;
  /** Milliseconds until the minute ends (how long its counter must live). */
  rateTtlMs: number;
  /** The Berlin date the daily counters belong to. */
  day: string;
  /** The daily quota; 0: this app has none (widget and third-party apps), nothing daily is counted. */
  dayMax: number;
  /** The marketplace cap when the route is of the marketplace group (and the app has a quota), else 0. */
  marketplaceMax: number;
  /** Milliseconds until the next Berlin midnight. */
  dayTtlMs: number;
  /** The concurrency place to take (`lockKey(group, ip)`), or '' for unrestricted routes. */
  lockKey: string;
  lockToken: string;
  lockTtlMs: number;
}

/** Why a charge was refused; the order is the order of the checks. */
export const ALLOWED = 0;
export const RATE_EXCEEDED = 1;
export const DAILY_QUOTA_EXCEEDED = 2;
export const MARKETPLACE_CAP_EXCEEDED = 3;
export const CONCURRENCY_BUSY = 4;
export type Outcome =
  | typeof ALLOWED
  | typeof RATE_EXCEEDED
  | typeof DAILY_QUOTA_EXCEEDED
  | typeof MARKETPLACE_CAP_EXCEEDED
  | typeof CONCURRENCY_BUSY;

export interface ChargeResult {
  outcome: Outcome;
  /** The daily count after this request (unchanged when refused); 0 when the app has no quota. */
  dayCount: number;
}

export interface Usage {
  day: string;
  dayCount: number;
  marketplaceCount: number;
  /** Requests in the current minute, per app that made any. */
  perMinute: Array<{ idApp: number; count: number }>;
}

/** The key of a concurrency place: one per restricted group and client IP. */
export function lockKey(group: string, ip: string): string {
  return `${group}|${ip}`;
}

/**
 * The answer when the shared store cannot be reached: letting requests through uncounted would
 * break the limits for every instance, so they are refused, quickly, until it is back.
 */
export function storeUnavailable(what = 'the shared limit store (Redis)'): ApiError {
  return new ApiError(
    503,
    `The request limits cannot be checked because ${what} is unreachable. Try again shortly.`,
    { code: 'limits_unavailable', headers: { 'Retry-After': '1' } },
  );
}

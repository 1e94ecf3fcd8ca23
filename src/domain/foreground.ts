/**
 * The process's foreground work (its API requests and pages), which background work gives way to
 * (docs/api.md, "Requests first"): `idle` resolves once none is under way, or after `maxWaitMs` at the
 * latest.
 */
export interface Foreground {
  idle(maxWaitMs: number): Promise<void>;
  /** Whether a request is under way now. */
  readonly busy: boolean;
}

/**
 * The longest a step of background work (a webhook delivery, an outbox transaction) waits for the
 * requests in flight to end. Under constant load it still runs this often, so background work falls
 * behind during a burst but never stops.
 */
export const FOREGROUND_WAIT_MS = 10;

/**
 * Under constant load, a step of background work that took `stepMs` of the core waits this many
 * times as long before the next (`pacedWaitMs`): requests keep nine tenths of a busy core. A fixed
 * wait alone let the outbox's steps of several milliseconds (a checkout's 100-line order) take a
 * third of the core during a burst of checkouts, and every request of the burst a third longer.
 */
export const BACKGROUND_PACE = 9;
/** The longest paced wait: under constant load background work still steps once a second. */
export const MAX_PACED_WAIT_MS = 1000;

/** How long the next step waits for the requests in flight at most, after a step of `stepMs`. */
export function pacedWaitMs(baseMs: number, stepMs: number): number {
  return Math.max(baseMs, Math.min(MAX_PACED_WAIT_MS, stepMs * BACKGROUND_PACE));
}

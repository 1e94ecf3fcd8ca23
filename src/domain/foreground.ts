/**
 * The process's foreground work (its API requests and pages), which background work gives way to
 * (README, "Requests first"): `idle` resolves once none is under way, or after `maxWaitMs` at the
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

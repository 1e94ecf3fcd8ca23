import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Foreground } from '../domain/webhooks.js';

/**
 * How long the process must have had no request in flight before background work starts (docs/api.md,
 * "Requests first"): longer than the gap a client leaves between one answer and its next request.
 */
export const QUIET_MS = 2;

/**
 * The requests this process is answering right now, so that background work (webhook deliveries)
 * can step aside while there are any (docs/api.md, "Events and webhooks"). A request counts from its
 * first hook until its response closes, which it does however it ends (answered, failed, or the
 * client gone), so the count cannot drift.
 */
export class RequestsInFlight implements Foreground {
  private count = 0;
  private waiters: Array<() => void> = [];
  /** When the last request ended (`performance.now()`), for the quiet period. */
  private lastLeft = -Infinity;
  private quietTimer: NodeJS.Timeout | undefined;

  /**
   * @param quietMs how long no request must have been in flight before background work goes: a
   * client sending its requests one after another leaves gaps of a fraction of a millisecond
   * between them, and a delivery started in such a gap delays its next request by its own work.
   */
  constructor(private readonly quietMs = QUIET_MS) {}

  get busy(): boolean {
    return this.count > 0;
  }

  enter(): void {
    this.count++;
    if (this.quietTimer) {
      clearTimeout(this.quietTimer);
      this.quietTimer = undefined;
    }
  }

  leave(): void {
    this.count--;
    if (this.count > 0) return;
    this.lastLeft = performance.now();
    if (this.waiters.length > 0) this.wakeWhenQuiet();
  }

  private wakeWhenQuiet(): void {
    if (this.quietTimer) return;
    const wait = this.lastLeft + this.quietMs - performance.now();
    if (wait > 0) {
      this.quietTimer = setTimeout(() => {
        this.quietTimer = undefined;
        if (this.count === 0) this.wakeWhenQuiet();
      }, Math.ceil(wait));
      return;
    }
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  /**
   * Resolves once no request has been in flight for the quiet period, or after `maxWaitMs` at the
   * latest; always on a later turn of the event loop (`setImmediate`), so I/O that arrived
   * meanwhile is read first.
   */
  idle(maxWaitMs: number): Promise<void> {
    return new Promise((resolve) => {
      if (this.count === 0 && performance.now() - this.lastLeft >= this.quietMs) {
        setImmediate(resolve);
        return;
      }
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        setImmediate(resolve);
      };
      const timer = setTimeout(() => {
        // Under constant load the count may never reach zero: forget this waiter.
        this.waiters = this.waiters.filter((w) => w !== finish);
        finish();
      }, maxWaitMs);
      this.waiters.push(finish);
      if (this.count === 0) this.wakeWhenQuiet();
    });
  }
}

/**
 * Counts a request from now until its response closes. Node closes a response once (its `_closed`
 * guard), so a plain listener does, without a `once` wrapper, and one function serves every request.
 */
export function countUntilClosed(inFlight: RequestsInFlight): (res: ServerResponse) => void {
  const leave = () => inFlight.leave();
  return (res) => {
    inFlight.enter();
    res.on('close', leave);
  };
}

export function installRequestsInFlight(app: FastifyInstance, inFlight: RequestsInFlight): void {
  const count = countUntilClosed(inFlight);
  app.addHook('onRequest', (_request, reply, done) => {
    count(reply.raw);
    done();
  });
}

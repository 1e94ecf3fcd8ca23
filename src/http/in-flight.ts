import type { FastifyInstance } from 'fastify';
import type { Foreground } from '../domain/webhooks.js';

/**
 * The requests this process is answering right now, so that background work (webhook deliveries)
 * can step aside while there are any (README, "Events and webhooks"). A request counts from its
 * first hook until its response closes, which it does however it ends (answered, failed, or the
 * client gone), so the count cannot drift.
 */
export class RequestsInFlight implements Foreground {
  private count = 0;
  private waiters: Array<() => void> = [];

  get busy(): boolean {
    return this.count > 0;
  }

  enter(): void {
    this.count++;
  }

  leave(): void {
    this.count--;
    if (this.count > 0 || this.waiters.length === 0) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  /**
   * Resolves once no request is in flight, or after `maxWaitMs` at the latest; always on a later
   * turn of the event loop (`setImmediate`), so I/O that arrived meanwhile is read first.
   */
  idle(maxWaitMs: number): Promise<void> {
    return new Promise((resolve) => {
      if (this.count === 0) {
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
    });
  }
}

export function installRequestsInFlight(app: FastifyInstance, inFlight: RequestsInFlight): void {
  app.addHook('onRequest', (_request, reply, done) => {
    inFlight.enter();
    reply.raw.once('close', () => inFlight.leave());
    done();
  });
}

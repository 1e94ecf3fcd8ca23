import type { Tx } from '../store/db.js';
import { markAllDelivered, markDelivered, markFailed, pendingEvents } from '../store/events.js';
import type { DomainContext } from './context.js';

/**
 * Delivers the outbox (`events` table). A handler runs in its own transaction together with the
 * claim of its event, so an event's effects happen exactly once even with several instances
 * polling, and a failing handler leaves the event for a later attempt (at most 10).
 */
/**
 * The events the marketplace raises, and their payloads. A feature that raises one appends it with
 * `appendEvent` in the transaction of the change; a feature that reacts registers a handler.
 */
export const EVENTS = {
  /** An article became available or cheaper (created, count increased, price lowered): { idArticle }. */
  articleListed: 'article.listed',
  /** An order changed state: { idOrder, from, to }. */
  orderStateChanged: 'order.stateChanged',
  /** A stock or user-offers export was requested; its handler builds the file: { idRequest }. */
  exportRequested: 'export.requested',
} as const;

/**
 * A handler does its work in `tx`. It may return a function to run once that transaction has
 * committed (never if it rolls back): to start work that must not hold the transaction open.
 */
// `void`, not `undefined`: most handlers return nothing, and stay valid without a `return`.
export type EventHandler = (ctx: DomainContext, tx: Tx, payload: unknown) => Promise<void | AfterCommit>;
export type AfterCommit = () => void;

export class EventDispatcher {
  private readonly handlers = new Map<string, EventHandler[]>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;

  constructor(private readonly ctx: DomainContext) {}

  on(type: string, handler: EventHandler): void {
    const list = this.handlers.get(type) ?? [];
    list.push(handler);
    this.handlers.set(type, list);
  }

  /** Delivers what is pending now; returns how many events were handled. */
  deliverPending(batch = 100): Promise<number> {
    // One delivery pass at a time per process; a second caller waits for the running one.
    this.running ??= this.pass(batch).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async pass(batch: number): Promise<number> {
    let handled = 0;
    for (;;) {
      const events = await pendingEvents(this.ctx.database.db, batch);
      if (events.length === 0) return handled;
      // Events nobody reacts to (yet) are settled in one statement, not a transaction each: a bulk
      // stock write raises a hundred at a time.
      const unheard = events.filter((e) => !this.handlers.has(e.type)).map((e) => e.idEvent);
      handled += await markAllDelivered(this.ctx.database.db, unheard, this.ctx.clock.now());
      for (const event of events) {
        if (!this.handlers.has(event.type)) continue;
        try {
          const afterCommit: AfterCommit[] = [];
          await this.ctx.database.transaction(async (tx) => {
            if (!(await markDelivered(tx, event.idEvent, this.ctx.clock.now()))) return;
            const payload = JSON.parse(event.payload) as unknown;
            for (const handler of this.handlers.get(event.type) ?? []) {
              const after = await handler(this.ctx, tx, payload);
              if (after) afterCommit.push(after);
            }
          });
          handled++;
          for (const after of afterCommit) after();
        } catch (err) {
          await markFailed(this.ctx.database.db, event.idEvent, (err as Error).message);
        }
      }
      if (events.length < batch) return handled;
    }
  }

  start(intervalMs = 500): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.deliverPending().catch(() => {});
    }, intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}

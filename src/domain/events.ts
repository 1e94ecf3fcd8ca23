import type { Tx } from '../store/db.js';
import { claimEvents, markAllDelivered, markFailed, pendingEvents } from '../store/events.js';
import type { DomainContext } from './context.js';

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
  /** An export file was built: { idRequest }. */
  exportFinished: 'export.finished',
  /** A checkout merged a new order into an unpaid one: { idOrder (the merged record), into }. */
  orderMerged: 'order.merged',
  /** An order changed without changing state: { idOrder, change: cancellationRequested | evaluated | trackingNumber, by? }. */
  orderChanged: 'order.changed',
  /** A message was written (by a user or the system): { seq }. */
  messageSent: 'message.sent',
  /** Copies of an article went into a shopping cart: { idArticle, count }. */
  articleReserved: 'article.reserved',
} as const;

/**
 * A handler does its work in `tx`. It may return a function to run once that transaction has
 * committed (never if it rolls back): to start work that must not hold the transaction open.
 */
// `void`, not `undefined`: most handlers return nothing, and stay valid without a `return`.
export type EventHandler = (ctx: DomainContext, tx: Tx, payload: unknown) => Promise<void | AfterCommit>;
/** A handler that takes all the events of its type in a delivery batch at once (e.g. to dedupe). */
export type BatchHandler = (ctx: DomainContext, tx: Tx, payloads: unknown[]) => Promise<void>;
export type AfterCommit = () => void;

const BATCH = 100;

/**
 * Delivers the outbox (`events` table). Handlers run in a transaction together with the claim of
 * their events, so an event's effects happen exactly once even with several instances polling. A
 * batch of events is delivered in one transaction (a bulk stock write raises a hundred at once);
 * if any handler fails, the batch is delivered again one event per transaction, so only the
 * failing event is left for a later attempt (at most 10).
 */
export class EventDispatcher {
  private readonly handlers = new Map<string, EventHandler[]>();
  private readonly batchHandlers = new Map<string, BatchHandler[]>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private stopping = false;

  constructor(private readonly ctx: DomainContext) {}

  on(type: string, handler: EventHandler): void {
    const list = this.handlers.get(type) ?? [];
    list.push(handler);
    this.handlers.set(type, list);
  }

  onBatch(type: string, handler: BatchHandler): void {
    const list = this.batchHandlers.get(type) ?? [];
    list.push(handler);
    this.batchHandlers.set(type, list);
  }

  private heard(type: string): boolean {
    return this.handlers.has(type) || this.batchHandlers.has(type);
  }

  /** Delivers what is pending now; returns how many events were handled. */
  deliverPending(batch = BATCH): Promise<number> {
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
      // Events nobody reacts to (yet) are settled in one statement.
      const unheard = events.filter((e) => !this.heard(e.type)).map((e) => e.idEvent);
      handled += await markAllDelivered(this.ctx.database.db, unheard, this.ctx.clock.now());
      // Fresh events go together; one that failed before goes alone, so it cannot hold back others.
      const fresh = events.filter((e) => this.heard(e.type) && e.attempts === 0);
      const retried = events.filter((e) => this.heard(e.type) && e.attempts > 0);
      let singly = retried;
      if (fresh.length > 0) {
        try {
          handled += await this.deliver(fresh);
        } catch {
          singly = [...fresh, ...retried];
        }
      }
      for (const event of singly) {
        try {
          handled += await this.deliver([event]);
        } catch (err) {
          await markFailed(this.ctx.database.db, event.idEvent, (err as Error).message);
        }
      }
      if (events.length < batch) return handled;
      // A stopping server finishes the batch in hand, not the whole backlog (thousands of events
      // after a burst of stock writes held a stop for minutes): the rest stays in the outbox,
      // committed, for the next process to deliver.
      if (this.stopping) return handled;
    }
  }

  /** Claims and handles these events in one transaction; returns how many it claimed. */
  private async deliver(events: Array<{ idEvent: number; type: string; payload: string }>): Promise<number> {
    const afterCommit: AfterCommit[] = [];
    const claimed = await this.ctx.database.transaction(async (tx) => {
      const now = this.ctx.clock.now();
      const byType = new Map<string, unknown[]>();
      let count = 0;
      // Claimed in one statement; another instance may have delivered some since they were read.
      const claimed = await claimEvents(
        tx,
        events.map((e) => e.idEvent),
        now,
      );
      for (const event of events) {
        if (!claimed.has(event.idEvent)) continue;
        count++;
        const payload = JSON.parse(event.payload) as unknown;
        for (const handler of this.handlers.get(event.type) ?? []) {
          const after = await handler(this.ctx, tx, payload);
          if (after) afterCommit.push(after);
        }
        const list = byType.get(event.type) ?? [];
        list.push(payload);
        byType.set(event.type, list);
      }
      for (const [type, payloads] of byType) {
        for (const handler of this.batchHandlers.get(type) ?? []) await handler(this.ctx, tx, payloads);
      }
      return count;
    });
    for (const after of afterCommit) after();
    return claimed;
  }

  start(intervalMs = 500): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.deliverPending().catch(() => {});
    }, intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}

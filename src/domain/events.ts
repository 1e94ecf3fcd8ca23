import type { Tx } from '../store/db.js';
import { claimEvents, markAllDelivered, markFailed, pendingEvents, unclaimEvents } from '../store/events.js';
import type { DomainContext } from './context.js';
import { FOREGROUND_WAIT_MS, type Foreground, pacedWaitMs } from './foreground.js';

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

export interface DispatcherOptions {
  /** Requests come first: each transaction of a pass waits for them (docs/api.md, "Requests first"). */
  foreground?: Foreground;
  /** The longest that wait lasts (`FOREGROUND_WAIT_MS`; tests make it long to be deterministic). */
  foregroundWaitMs?: number;
}

/**
 * Delivers the outbox (`events` table). Handlers run in a transaction together with the claim of
 * their events, so an event's effects happen exactly once even with several instances polling.
 * Fresh events are delivered many to a transaction (a bulk stock write raises a hundred at once,
 * and batch handlers take them together: a checkout's hundred price guides are recomputed once for
 * all the checkouts of a pass). Requests come first (docs/api.md, "Requests first"): before each
 * transaction the pass waits for the requests in flight, holding no transaction open meanwhile,
 * and a transaction ends early when a request came in, after the event in hand. If a transaction
 * fails, its events are delivered again one per transaction, so only the failing event is left
 * for a later attempt (at most 10).
 */
export class EventDispatcher {
  private readonly handlers = new Map<string, EventHandler[]>();
  private readonly batchHandlers = new Map<string, BatchHandler[]>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private stopping = false;
  private holds = 0;

  constructor(
    private readonly ctx: DomainContext,
    private readonly options: DispatcherOptions = {},
  ) {}

  /** How long the last step (a read, a transaction) took, for the pace of the next (`pacedWaitMs`). */
  private lastStepMs = 0;
  private stepStarted = 0;

  /**
   * Lets the requests in flight finish first, and the event loop read what arrived meanwhile: under
   * constant load, for nine times as long as the step before took (`BACKGROUND_PACE`).
   */
  private giveWay(): Promise<void> | undefined {
    const foreground = this.options.foreground;
    if (!foreground) return undefined;
    this.stepDone();
    const base = this.options.foregroundWaitMs ?? FOREGROUND_WAIT_MS;
    return foreground.idle(pacedWaitMs(base, this.lastStepMs)).then(() => {
      this.stepStarted = performance.now();
    });
  }

  /** Ends the step `giveWay` started: its length paces the next wait. */
  private stepDone(): void {
    if (this.stepStarted !== 0) this.lastStepMs = performance.now() - this.stepStarted;
    this.stepStarted = 0;
  }

  /**
   * Whether a request came in while a transaction runs: its I/O is read first (on SQLite the
   * statements never wait for I/O, so nothing would be read until the transaction ends).
   */
  private async requestsWaiting(): Promise<boolean> {
    const foreground = this.options.foreground;
    if (!foreground) return false;
    await new Promise((resolve) => setImmediate(resolve));
    return foreground.busy;
  }

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
      this.stepDone();
      this.running = undefined;
    });
    return this.running;
  }

  private async pass(batch: number): Promise<number> {
    let handled = 0;
    for (;;) {
      await this.giveWay();
      const events = await pendingEvents(this.ctx.database.db, batch);
      if (events.length === 0) return handled;
      // Events nobody reacts to (yet) are settled in one statement.
      const unheard = events.filter((e) => !this.heard(e.type)).map((e) => e.idEvent);
      handled += await markAllDelivered(this.ctx.database.db, unheard, this.ctx.clock.now());
      // Fresh events go in order, several to a transaction; one that failed before goes alone, so
      // it cannot hold back others.
      const fresh = events.filter((e) => this.heard(e.type) && e.attempts === 0);
      const retried = events.filter((e) => this.heard(e.type) && e.attempts > 0);
      let queue = fresh;
      while (queue.length > 0) {
        await this.giveWay();
        const progress = { taken: 0 };
        try {
          handled += await this.deliver(queue, progress);
          queue = queue.slice(progress.taken);
        } catch {
          // In order: the events that transaction took, one by one, before the rest.
          const taken = Math.max(progress.taken, 1);
          handled += await this.deliverSingly(queue.slice(0, taken));
          queue = queue.slice(taken);
        }
      }
      handled += await this.deliverSingly(retried);
      if (events.length < batch) return handled;
      // A stopping server finishes the batch in hand, not the whole backlog (thousands of events
      // after a burst of stock writes held a stop for minutes): the rest stays in the outbox,
      // committed, for the next process to deliver.
      if (this.stopping) return handled;
    }
  }

  /** Each event in a transaction of its own; one that fails is left for a later attempt. */
  private async deliverSingly(events: Array<{ idEvent: number; type: string; payload: string }>) {
    let handled = 0;
    for (const event of events) {
      await this.giveWay();
      try {
        handled += await this.deliver([event]);
      } catch (err) {
        await markFailed(this.ctx.database.db, event.idEvent, (err as Error).message);
      }
    }
    return handled;
  }

  /**
   * Claims and handles these events in one transaction; returns how many it claimed. With
   * `progress`, it stops early when a request came in after an event with per-event handlers (the
   * derivation of public events, several milliseconds for a checkout's order): the events not
   * taken are given back in the same transaction, and `progress.taken` says how many were taken.
   */
  private async deliver(
    events: Array<{ idEvent: number; type: string; payload: string }>,
    progress?: { taken: number },
  ): Promise<number> {
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
      let taken = 0;
      for (const event of events) {
        taken++;
        if (progress) progress.taken = taken;
        if (!claimed.has(event.idEvent)) continue;
        count++;
        const payload = JSON.parse(event.payload) as unknown;
        const handlers = this.handlers.get(event.type);
        for (const handler of handlers ?? []) {
          const after = await handler(this.ctx, tx, payload);
          if (after) afterCommit.push(after);
        }
        const list = byType.get(event.type) ?? [];
        list.push(payload);
        byType.set(event.type, list);
        if (progress && handlers && taken < events.length && (await this.requestsWaiting())) break;
      }
      const left = events.slice(taken).filter((e) => claimed.has(e.idEvent));
      await unclaimEvents(
        tx,
        left.map((e) => e.idEvent),
      );
      for (const [type, payloads] of byType) {
        for (const handler of this.batchHandlers.get(type) ?? []) await handler(this.ctx, tx, payloads);
      }
      return count;
    });
    for (const after of afterCommit) after();
    return claimed;
  }

  /**
   * Keeps the periodic pass from starting until the returned function is called: a server's market
   * yields to requests between its actions, and delivers the outbox itself at the end of its step,
   * so that the handlers still run at the same point of every step (an explicit `deliverPending`
   * is not held).
   */
  hold(): () => void {
    this.holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds--;
    };
  }

  start(intervalMs = 500): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.holds > 0) return;
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

import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { EventDispatcher } from '../src/domain/events.js';
import { type Foreground, MAX_PACED_WAIT_MS, pacedWaitMs } from '../src/domain/foreground.js';
import { installRequestsInFlight, RequestsInFlight } from '../src/http/in-flight.js';
import { appendEvent } from '../src/store/events.js';
import { DIALECTS, startTestServer, type TestServer } from './helpers.js';

// Requests first (README, "Events and webhooks"): an outbox pass gives way to a request that
// arrives while it runs. Deterministic, not timed: the pass waits for the request as long as it
// takes (the wait's bound is a minute here), and the request waits for nothing but the commit of
// the transaction that was running when it came in.
for (const dialect of DIALECTS) {
  describe(`the outbox pass gives way to requests (${dialect})`, () => {
    let server: TestServer;
    let site: FastifyInstance;
    const inFlight = new RequestsInFlight();
    let committed!: Promise<void>;
    let commit!: () => void;
    const order: string[] = [];
    before(async () => {
      server = await startTestServer({ dialect });
      // The server's own dispatcher would settle these events, heard by nobody there.
      await server.services.events.stop();
      committed = new Promise((resolve) => (commit = resolve));
      site = Fastify();
      installRequestsInFlight(site, inFlight);
      site.get('/outbox', async () => {
        // Whatever the transaction in hand writes is visible once it committed: a pass that kept
        // its transaction open across the wait would never let this answer (SQLite: the one
        // connection; PostgreSQL: the commit signal).
        await committed;
        order.push('request');
        const rows = await server.services.database.db
          .selectFrom('events')
          .select(['payload', 'deliveredAt'])
          .where('type', '=', 'test.yield')
          .orderBy('idEvent')
          .execute();
        return rows.map((r) => ({
          n: (JSON.parse(r.payload) as { n: number }).n,
          delivered: r.deliveredAt !== null,
        }));
      });
      await site.listen({ port: 0, host: '127.0.0.1' });
    });
    after(async () => {
      await site.close();
      await server.close();
    });

    it('answers a request that arrives during a pass before the pass goes on, each event once', async () => {
      const { database } = server.services;
      const dispatcher = new EventDispatcher(
        { database, clock: server.clock },
        { foreground: inFlight, foregroundWaitMs: 60_000 },
      );
      const url = `http://127.0.0.1:${(site.server.address() as AddressInfo).port}/outbox`;
      let answer: Promise<unknown> | undefined;
      dispatcher.on('test.yield', async () => {
        const n = order.filter((o) => o.startsWith('event')).length + 1;
        order.push(`event ${n}`);
        if (n !== 1) return undefined;
        // A request comes in while the first event is handled, in its transaction.
        answer = fetch(url).then((r) => r.json());
        while (!inFlight.busy) await new Promise((resolve) => setImmediate(resolve));
        return commit;
      });
      await database.transaction(async (tx) => {
        for (const n of [1, 2, 3]) await appendEvent(tx, 'test.yield', { n }, server.clock.now());
      });
      assert.equal(await dispatcher.deliverPending(), 3);
      assert.deepEqual(order, ['event 1', 'request', 'event 2', 'event 3']);
      // The answer saw the first event's transaction committed and the others given back, pending.
      assert.deepEqual(await answer, [
        { n: 1, delivered: true },
        { n: 2, delivered: false },
        { n: 3, delivered: false },
      ]);
      const pending = await database.db
        .selectFrom('events')
        .select('idEvent')
        .where('type', '=', 'test.yield')
        .where('deliveredAt', 'is', null)
        .execute();
      assert.equal(pending.length, 0);
    });

    it('under constant load, waits nine times as long as its last step took before the next', async () => {
      const { database } = server.services;
      // Requests always in flight: every wait runs to its bound, which is what is recorded.
      const bounds: number[] = [];
      const loaded: Foreground = {
        busy: true,
        idle: (maxWaitMs) => {
          bounds.push(maxWaitMs);
          return new Promise((resolve) => setImmediate(resolve));
        },
      };
      const dispatcher = new EventDispatcher({ database, clock: server.clock }, { foreground: loaded });
      const handled: number[] = [];
      const boundBefore = new Map<number, number>();
      dispatcher.on('test.paced', async (_ctx, _tx, payload) => {
        const n = (payload as { n: number }).n;
        boundBefore.set(n, bounds.length);
        handled.push(n);
        // The second event is a long step: 60 ms of the core, as a large order's derivation.
        if (n === 2) {
          const until = performance.now() + 60;
          while (performance.now() < until);
        }
        return undefined;
      });
      await database.transaction(async (tx) => {
        for (const n of [1, 2, 3]) await appendEvent(tx, 'test.paced', { n }, server.clock.now());
      });
      assert.equal(await dispatcher.deliverPending(), 3);
      assert.deepEqual(handled, [1, 2, 3]);
      // One transaction per event (requests are waiting after each): the wait before the third
      // follows the long step, the one before the second a short one.
      const beforeThird = bounds[boundBefore.get(3)! - 1]!;
      const beforeSecond = bounds[boundBefore.get(2)! - 1]!;
      assert.ok(beforeThird >= 9 * 60, `waited at most ${beforeThird} ms after a step of 60 ms`);
      assert.ok(beforeThird <= MAX_PACED_WAIT_MS);
      assert.ok(beforeSecond < 9 * 60, `waited at most ${beforeSecond} ms after a short step`);
    });
  });
}

describe('the pace of background work under load', () => {
  it('is the fixed wait after short steps, nine times a long step, and never over a second', () => {
    assert.equal(pacedWaitMs(10, 0), 10);
    assert.equal(pacedWaitMs(10, 1), 10);
    assert.equal(pacedWaitMs(10, 5), 45);
    assert.equal(pacedWaitMs(60_000, 5), 60_000);
    assert.equal(pacedWaitMs(10, 5_000), MAX_PACED_WAIT_MS);
  });
});

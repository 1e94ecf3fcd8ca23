import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EventDispatcher } from '../src/domain/events.js';
import { appendEvent } from '../src/store/events.js';
import { getSetting, putSetting } from '../src/store/settings.js';
import { DIALECTS, startTestServer, type TestServer } from './helpers.js';

// Handlers here record their effects in the database (settings rows), as real handlers do: a
// delivery that fails is rolled back, so only what a committed delivery wrote may count.
for (const dialect of DIALECTS) {
  describe(`the events outbox (${dialect})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ dialect });
    });
    after(() => server.close());

    it('keeps only a failing event for later; the others take effect exactly once', async () => {
      const { events, database } = server.services;
      events.on('test.single', async (_ctx, tx, payload) => {
        const n = (payload as { n: number }).n;
        if (n === 2) throw new Error('event 2 is bad');
        const key = `test.single.${n}`;
        await putSetting(tx, key, String(Number((await getSetting(tx, key)) ?? 0) + 1));
      });
      await database.transaction(async (tx) => {
        for (const n of [1, 2, 3]) await appendEvent(tx, 'test.single', { n }, server.clock.now());
      });
      assert.equal(await events.deliverPending(), 2);
      assert.equal(await getSetting(database.db, 'test.single.1'), '1');
      assert.equal(await getSetting(database.db, 'test.single.2'), undefined);
      assert.equal(await getSetting(database.db, 'test.single.3'), '1');
      const rows = await database.db
        .selectFrom('events')
        .selectAll()
        .where('type', '=', 'test.single')
        .execute();
      const bad = rows.find((r) => JSON.parse(r.payload).n === 2)!;
      assert.equal(bad.deliveredAt, null);
      assert.equal(bad.attempts, 1);
      assert.match(bad.lastError ?? '', /event 2 is bad/);
      assert.ok(rows.filter((r) => r !== bad).every((r) => r.deliveredAt !== null));
    });

    it('hands a batch handler every payload of a batch at once', async () => {
      const { events, database } = server.services;
      events.onBatch('test.batch', async (_ctx, tx, payloads) => {
        const seen = (await getSetting(tx, 'test.batch')) ?? '';
        await putSetting(
          tx,
          'test.batch',
          `${seen}[${payloads.map((p) => (p as { n: number }).n).join(',')}]`,
        );
      });
      await database.transaction(async (tx) => {
        for (const n of [1, 2, 3, 4]) await appendEvent(tx, 'test.batch', { n }, server.clock.now());
      });
      assert.equal(await events.deliverPending(), 4);
      assert.equal(await getSetting(database.db, 'test.batch'), '[1,2,3,4]');
    });

    it('a stop ends the pass after the batch in hand; the backlog stays for the next process', async () => {
      // The server's own dispatcher would settle these unheard events: it stops first (last test).
      await server.services.events.stop();
      const ctx = { database: server.services.database, clock: server.clock };
      const first = new EventDispatcher(ctx);
      let handled = 0;
      let stopped: Promise<void> | undefined;
      first.on('test.backlog', async () => {
        handled++;
        // Stop asked while the first batch is being handled.
        stopped ??= first.stop();
      });
      await server.services.database.transaction(async (tx) => {
        for (let n = 0; n < 250; n++) await appendEvent(tx, 'test.backlog', { n }, server.clock.now());
      });
      // One batch of 100 (an event left pending by an earlier test may share it).
      assert.ok((await first.deliverPending()) <= 100);
      await stopped;
      assert.ok(handled > 0 && handled <= 100, `handled ${handled}`);
      const pending = await server.services.database.db
        .selectFrom('events')
        .select('idEvent')
        .where('type', '=', 'test.backlog')
        .where('deliveredAt', 'is', null)
        .execute();
      assert.equal(pending.length, 250 - handled);
      // The next process delivers what is left, once.
      const next = new EventDispatcher(ctx);
      let later = 0;
      next.on('test.backlog', async () => {
        later++;
      });
      await next.deliverPending();
      assert.equal(later, 250 - handled);
    });
  });
}

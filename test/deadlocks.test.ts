import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { changeCart, getCart, sweepExpiredReservations } from '../src/domain/cart.js';
import { checkout } from '../src/domain/checkout.js';
import { transactionRetries } from '../src/store/db.js';
import type { Article } from '../src/store/schema.js';
import { DIALECTS, startTestServer, type TestServer } from './helpers.js';
import { createTrader, offer, type Trader } from './trading-helpers.js';

/**
 * The paths that lock reservations and articles, run against each other: releasing expired
 * reservations (the background sweep, two of them as two workers would run it, and a buyer's own
 * cart) while carts change and check out over the same articles, added in different orders. On
 * PostgreSQL each takes its rows in one order (reservations by id, then articles by id), so none
 * waits in a cycle: no transaction is retried for a deadlock (40P01), and every copy is still
 * somewhere. Under the old order (copies returned in the order the lines were deleted, an add
 * releasing another buyer's reservation while holding articles) this deadlocked within a few rounds.
 */
const COPIES = 40;

for (const dialect of DIALECTS) {
  describe(`locks in one order: releases, cart changes and checkouts side by side (${dialect})`, () => {
    let server: TestServer;
    let buyers: Trader[];
    let articles: Article[];

    before(async () => {
      server = await startTestServer({ dialect });
      const seller = await createTrader(server, { name: 'seller' });
      buyers = [];
      for (let i = 0; i < 6; i++) buyers.push(await createTrader(server, { balanceCents: 1_000_000 }));
      articles = [];
      for (let i = 0; i < 6; i++)
        articles.push(await offer(server, seller.user, { count: COPIES, price: 10 }));
    });
    after(() => server.close());

    it('retries no transaction for a deadlock, and conserves every copy', async () => {
      const services = server.services;
      const before = transactionRetries.get('40P01') ?? 0;
      const failures: unknown[] = [];
      const run = (p: Promise<unknown>) => p.catch((err: unknown) => failures.push(err));
      for (let round = 0; round < 8; round++) {
        // Every buyer reserves a copy of every article, each in another order.
        await Promise.all(
          buyers.map((b, i) =>
            run(
              changeCart(
                services,
                b.user.idUser,
                'add',
                articles.map((_, k) => ({
                  idArticle: articles[(k + i) % articles.length]!.idArticle,
                  count: 1,
                })),
              ),
            ),
          ),
        );
        // The reservations expire; then everything at once over the same rows.
        server.clock.advance(services.config.reservationExpiryMs + 1);
        await Promise.all([
          run(sweepExpiredReservations(services)),
          run(sweepExpiredReservations(services)),
          ...buyers.map((b, i) => {
            const order = articles.map((_, k) => articles[(articles.length - 1 - k + i) % articles.length]!);
            if (i % 3 === 0) return run(getCart(services, b.user.idUser));
            return run(
              changeCart(
                services,
                b.user.idUser,
                'add',
                order.slice(0, 3).map((a) => ({ idArticle: a.idArticle, count: 1 })),
              ).then(() => (i % 3 === 1 ? checkout(services, b.user.idUser) : undefined)),
            );
          }),
        ]);
      }
      assert.deepEqual(failures, []);
      assert.equal((transactionRetries.get('40P01') ?? 0) - before, 0, 'transactions retried for a deadlock');

      // Every copy is on offer, in a cart or in an order.
      const db = services.database.db;
      for (const a of articles) {
        const available =
          (
            await db
              .selectFrom('articles')
              .select('count')
              .where('idArticle', '=', a.idArticle)
              .executeTakeFirst()
          )?.count ?? 0;
        const reserved = (
          await db
            .selectFrom('reservationArticles')
            .select('count')
            .where('idArticle', '=', a.idArticle)
            .execute()
        ).reduce((n, r) => n + r.count, 0);
        const sold = (
          await db
            .selectFrom('orderArticles as l')
            .innerJoin('orders as o', 'o.idOrder', 'l.idOrder')
            .select('l.count')
            .where('l.idArticle', '=', a.idArticle)
            // A merged order's lines live on in the order it was merged into.
            .where('o.wasMergedInto', 'is', null)
            .execute()
        ).reduce((n, r) => n + r.count, 0);
        assert.equal(available + reserved + sold, COPIES, `article ${a.idArticle}`);
      }
    });
  });
}

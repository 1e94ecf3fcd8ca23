import { createApp } from '../../src/auth/apps.js';
import type { ClientCredentials } from '../../src/auth/client.js';
import { createUser } from '../../src/domain/users.js';
import { insertArticle } from '../../src/store/articles.js';
import { benchArticle, benchCatalog, issuedCredentials } from '../prepare.js';
import type { Scenario } from '../scenario.js';

/**
 * `PUT /shoppingcart/checkout` of a 100-article cart. A checkout is a one-shot write (it empties the
 * cart), so it cannot be loaded by replaying one request: `prepare` fills BUYERS carts of 100
 * different articles each (one reservation with one seller, a copy of each article), and the
 * harness sends each buyer's checkout once, sequentially (the scenario's `sequential` mode),
 * comparing the time per request with the bare server's. Each checkout creates an order with 100
 * frozen lines, takes the copies out of the reservation and answers the order (about 60 KB).
 */
const ARTICLES = 100;
/** Enough for the sample, the warm-up (a round's worth) and 14 rounds of 20. */
const BUYERS = 302;
const FAR_FUTURE = Date.UTC(2100, 0, 1);

interface CheckoutState {
  buyers: ClientCredentials[];
}

export const checkoutScenario: Scenario<CheckoutState> = {
  name: 'PUT /shoppingcart/checkout (100 articles)',
  description: 'checkout of a cart of 100 articles: one order, 100 frozen lines (XML)',
  sequential: { requests: 20 },
  async prepare(services) {
    const db = services.database.db;
    const now = services.clock.now();
    const seller = await createUser(services, {
      username: 'bench-shop',
      country: 'D',
      accountType: 'professional',
      firstName: 'Bench',
      lastName: 'Shop',
      street: 'Benchstraße 1',
      zip: '10115',
      city: 'Berlin',
    });
    await benchCatalog(db, ARTICLES);
    const articleIds: number[] = [];
    for (let p = 1; p <= ARTICLES; p++) {
      // Copies left for sale after every buyer's reserved copy: the articles stay listed.
      const article = await insertArticle(
        db,
        benchArticle(seller.idUser, p, now, { price: 50 + p * 3, count: 1000 }),
      );
      articleIds.push(article.idArticle);
    }
    const buyers: ClientCredentials[] = [];
    for (let b = 0; b < BUYERS; b++) {
      const buyer = await createUser(services, {
        username: `bench-buyer-${b}`,
        country: 'FR',
        accountType: 'private',
        firstName: 'Bench',
        lastName: `Buyer ${b}`,
        street: `${b} rue du Banc`,
        zip: '75001',
        city: 'Paris',
      });
      const app = await createApp(services, { idUser: buyer.idUser, kind: 'dedicated' });
      buyers.push(issuedCredentials(app));
      // The cart as an add would leave it: a reservation holding one copy of each article.
      await services.database.transaction(async (tx) => {
        const reservation = await tx
          .insertInto('reservations')
          .values({
            idBuyer: buyer.idUser,
            idSeller: seller.idUser,
            idShippingMethod: null,
            createdAt: now,
            expiresAt: FAR_FUTURE,
          })
          .returning('idReservation')
          .executeTakeFirstOrThrow();
        await tx
          .insertInto('reservationArticles')
          .values(
            articleIds.map((idArticle) => ({
              idReservation: reservation.idReservation,
              idArticle,
              count: 1,
            })),
          )
          .execute();
        await tx
          .updateTable('articles')
          .set((eb) => ({ count: eb('count', '-', 1) }))
          .where('idUser', '=', seller.idUser)
          .execute();
      });
    }
    return { buyers };
  },
  request(state, i) {
    const buyer = state.buyers[i + 1];
    if (!buyer)
      throw new Error(`the checkout benchmark prepared ${state.buyers.length - 1} carts; raise BUYERS`);
    return { method: 'PUT', path: '/shoppingcart/checkout', credentials: buyer };
  },
  expectStatus: 200,
};

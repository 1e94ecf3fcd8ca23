import type { Article, User } from '../src/store/schema.js';
import type { TestServer } from './helpers.js';

/**
 * Helpers for the stock suites. Reservations are made the way the cart feature makes them (copies
 * leave `articles.count` and sit in `reservationArticles`), directly in the database, so these
 * suites do not depend on the cart's endpoints.
 */

/** `<article>…</article>` from a record of element names to values (`undefined` left out). */
export function articleXml(fields: Record<string, string | number | boolean | undefined>): string {
  const inner = Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `<${k}>${String(v)}</${k}>`)
    .join('');
  return `<article>${inner}</article>`;
}

/** Puts `count` copies of a seller's article in `buyer`'s cart. */
export async function reserve(
  server: TestServer,
  buyer: User,
  article: Article,
  count: number,
): Promise<void> {
  const now = server.clock.now();
  await server.services.database.transaction(async (tx) => {
    const taken = await tx
      .updateTable('articles')
      .set((eb) => ({ count: eb('count', '-', count) }))
      .where('idArticle', '=', article.idArticle)
      .where('count', '>=', count)
      .executeTakeFirst();
    if (taken.numUpdatedRows !== 1n) throw new Error('not enough copies to reserve');
    let reservation = await tx
      .selectFrom('reservations')
      .select('idReservation')
      .where('idBuyer', '=', buyer.idUser)
      .where('idSeller', '=', article.idUser)
      .executeTakeFirst();
    if (!reservation) {
      reservation = await tx
        .insertInto('reservations')
        .values({
          idBuyer: buyer.idUser,
          idSeller: article.idUser,
          idShippingMethod: null,
          createdAt: now,
          expiresAt: now + 3_600_000,
        })
        .returning('idReservation')
        .executeTakeFirstOrThrow();
    }
    await tx
      .insertInto('reservationArticles')
      .values({ idReservation: reservation.idReservation, idArticle: article.idArticle, count })
      .execute();
  });
}

/** Gives reserved copies back to the article, as an expired or emptied cart does. */
export async function release(server: TestServer, article: Article): Promise<void> {
  await server.services.database.transaction(async (tx) => {
    const rows = await tx
      .selectFrom('reservationArticles')
      .select(['idReservation', 'count'])
      .where('idArticle', '=', article.idArticle)
      .execute();
    for (const row of rows) {
      await tx
        .updateTable('articles')
        .set((eb) => ({ count: eb('count', '+', row.count) }))
        .where('idArticle', '=', article.idArticle)
        .execute();
    }
    await tx.deleteFrom('reservationArticles').where('idArticle', '=', article.idArticle).execute();
  });
}

export async function articleRow(server: TestServer, idArticle: number): Promise<Article | undefined> {
  return server.services.database.db
    .selectFrom('articles')
    .selectAll()
    .where('idArticle', '=', idArticle)
    .executeTakeFirst();
}

export async function countEvents(server: TestServer, type: string): Promise<number> {
  const row = await server.services.database.db
    .selectFrom('events')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('type', '=', type)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

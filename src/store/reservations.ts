import { SqliteAdapter, sql } from 'kysely';
import {
  ARTICLE_VIEW_PACKED,
  type ArticleView,
  articleViewJoins,
  articleViewOf,
  type FlatRow,
  PRODUCT_FACT_COLUMNS,
} from './articles.js';
import { type PackedRow, packedRow } from './packed.js';
import type { Executor } from './db.js';
import { prepared, preparedBySize } from './prepared.js';
import type { CartShippingAddressesTable, Reservation } from './schema.js';

/**
 * Cart reservations: one per buyer and seller, holding copies that have left `articles.count`.
 * Adding moves copies from the article into a reservation with a conditional update (the count
 * never goes below zero, whatever races above it); releasing moves them back. Other features read
 * reserved copies from here: the marketplace's `inShoppingCart`, the stock's reserved counts.
 */

/** Copies of each article held in any cart (articles without reserved copies are absent). */
export async function reservedCounts(db: Executor, idArticles: number[]): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  if (idArticles.length === 0) return out;
  for (const r of (await reservedRows(db, idArticles)).rows) out.set(Number(r.idArticle), Number(r.reserved));
  return out;
}

// One grouped probe of the index per article: cheaper than a correlated sum per row of a wider read.
const reservedRows = preparedBySize(
  (db: Executor, idArticles: number[]) =>
    db
      .selectFrom('reservationArticles')
      .select(['idArticle', (eb) => eb.fn.sum<number>('count').as('reserved')])
      .where('idArticle', 'in', idArticles)
      .groupBy('idArticle')
      .compile(),
  (idArticles) => idArticles.length,
  (idArticles) => idArticles,
);

/** Which of these articles have copies in this buyer's cart (the marketplace's `inShoppingCart`). */
export async function articlesInCartOf(
  db: Executor,
  idBuyer: number,
  idArticles: number[],
): Promise<Set<number>> {
  if (idArticles.length === 0) return new Set();
  const { rows } = await inCartRows(db, idBuyer, idArticles);
  return new Set(rows.map((r) => Number(r.idArticle)));
}

// Every page of offers a signed-in buyer reads asks this: compiled once per number of articles.
const inCartRows = preparedBySize(
  (db: Executor, idBuyer: number, idArticles: number[]) =>
    db
      .selectFrom('reservationArticles as ra')
      .innerJoin('reservations as r', 'r.idReservation', 'ra.idReservation')
      .select('ra.idArticle')
      .where('r.idBuyer', '=', idBuyer)
      .where('ra.idArticle', 'in', idArticles)
      .compile(),
  (_idBuyer, idArticles) => idArticles.length,
  (idBuyer, idArticles) => [idBuyer, ...idArticles],
  { direct: true },
);

/** The seller's articles with copies in other users' carts, with how many copies, by id. */
export async function reservedStockPage(
  db: Executor,
  idUser: number,
  offset: number,
  limit: number,
): Promise<Array<{ idArticle: number; reserved: number }>> {
  const rows = await db
    .selectFrom('reservationArticles as ra')
    .innerJoin('reservations as r', 'r.idReservation', 'ra.idReservation')
    .innerJoin('articles as a', 'a.idArticle', 'ra.idArticle')
    .select((eb) => ['ra.idArticle', eb.fn.sum<number>('ra.count').as('reserved')])
    .where('a.idUser', '=', idUser)
    .where('r.idBuyer', '<>', idUser)
    .groupBy('ra.idArticle')
    .orderBy('ra.idArticle')
    .limit(limit)
    .offset(offset)
    .execute();
  return rows.map((r) => ({ idArticle: Number(r.idArticle), reserved: Number(r.reserved) }));
}

export async function countReservedStock(db: Executor, idUser: number): Promise<number> {
  const row = await db
    .selectFrom('reservationArticles as ra')
    .innerJoin('reservations as r', 'r.idReservation', 'ra.idReservation')
    .innerJoin('articles as a', 'a.idArticle', 'ra.idArticle')
    .select(sql<number>`count(distinct ${sql.ref('ra.idArticle')})`.as('n'))
    .where('a.idUser', '=', idUser)
    .where('r.idBuyer', '<>', idUser)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

const reservedByBuyer = prepared(
  (db, idBuyer: number) =>
    db
      .selectFrom('reservationArticles as ra')
      .innerJoin('reservations as r', 'r.idReservation', 'ra.idReservation')
      .select((eb) => eb.fn.sum<number>('ra.count').as('n'))
      .where('r.idBuyer', '=', idBuyer),
  [0],
);

/** The account's `articlesInShoppingCart`: copies in the buyer's cart. */
export async function articlesInShoppingCart(db: Executor, idBuyer: number): Promise<number> {
  const row = (await reservedByBuyer(db, idBuyer))[0];
  return Number(row?.n ?? 0);
}

export async function buyerReservations(db: Executor, idBuyer: number): Promise<Reservation[]> {
  return (await reservationsOfBuyer(db, idBuyer)).rows;
}

// The checkout's statements of one shape are compiled once (per dialect) rather than per request,
// like its statements over lists: `preparedBySize` with a fixed size.
const reservationsOfBuyer = preparedBySize(
  (db: Executor, idBuyer: number) =>
    db
      .selectFrom('reservations')
      .selectAll()
      .where('idBuyer', '=', idBuyer)
      .orderBy('idReservation')
      .compile(),
  () => 1,
  (idBuyer) => [idBuyer],
);

export async function findReservation(db: Executor, idReservation: number): Promise<Reservation | undefined> {
  return db
    .selectFrom('reservations')
    .selectAll()
    .where('idReservation', '=', idReservation)
    .executeTakeFirst();
}

/** The buyer's reservation with this seller, created if there is none; its expiry set anew. */
export async function openReservation(
  db: Executor,
  idBuyer: number,
  idSeller: number,
  now: number,
  expiresAt: number,
): Promise<Reservation> {
  await db
    .insertInto('reservations')
    .values({ idBuyer, idSeller, idShippingMethod: null, createdAt: now, expiresAt })
    .onConflict((oc) => oc.columns(['idBuyer', 'idSeller']).doUpdateSet({ expiresAt }))
    .execute();
  return db
    .selectFrom('reservations')
    .selectAll()
    .where('idBuyer', '=', idBuyer)
    .where('idSeller', '=', idSeller)
    .executeTakeFirstOrThrow();
}

/** Sets a new expiry (and so locks the row, like `lockReservation`); undefined when it is gone. */
export async function touchReservation(
  db: Executor,
  idReservation: number,
  expiresAt: number,
): Promise<Reservation | undefined> {
  return db
    .updateTable('reservations')
    .set({ expiresAt })
    .where('idReservation', '=', idReservation)
    .returningAll()
    .executeTakeFirst();
}

export async function setReservationShippingMethod(
  db: Executor,
  idReservation: number,
  idShippingMethod: number,
): Promise<void> {
  await db
    .updateTable('reservations')
    .set({ idShippingMethod })
    .where('idReservation', '=', idReservation)
    .execute();
}

/** Takes `n` copies out of the available count; false (nothing changed) when fewer are there. */
export async function takeFromStock(db: Executor, idArticle: number, n: number): Promise<boolean> {
  const r = await db
    .updateTable('articles')
    .set((eb) => ({ count: eb('count', '-', n) }))
    .where('idArticle', '=', idArticle)
    .where('count', '>=', n)
    .executeTakeFirst();
  return r.numUpdatedRows === 1n;
}

/** Puts `n` copies back into the available count; returns the new count (undefined: no article). */
export async function returnToStock(db: Executor, idArticle: number, n: number): Promise<number | undefined> {
  const row = await db
    .updateTable('articles')
    .set((eb) => ({ count: eb('count', '+', n) }))
    .where('idArticle', '=', idArticle)
    .returning('count')
    .executeTakeFirst();
  return row?.count;
}

export async function addReservedCopies(
  db: Executor,
  idReservation: number,
  idArticle: number,
  n: number,
): Promise<void> {
  await db
    .insertInto('reservationArticles')
    .values({ idReservation, idArticle, count: n })
    .onConflict((oc) =>
      oc.columns(['idReservation', 'idArticle']).doUpdateSet((eb) => ({
        count: eb('reservationArticles.count', '+', eb.ref('excluded.count')),
      })),
    )
    .execute();
}

/**
 * Takes `n` copies out of a reservation: false when it holds fewer. A line left at zero is deleted
 * (the CHECK keeps a line positive).
 */
export async function removeReservedCopies(
  db: Executor,
  idReservation: number,
  idArticle: number,
  n: number,
): Promise<boolean> {
  const partial = await db
    .updateTable('reservationArticles')
    .set((eb) => ({ count: eb('count', '-', n) }))
    .where('idReservation', '=', idReservation)
    .where('idArticle', '=', idArticle)
    .where('count', '>', n)
    .executeTakeFirst();
  if (partial.numUpdatedRows === 1n) return true;
  const whole = await db
    .deleteFrom('reservationArticles')
    .where('idReservation', '=', idReservation)
    .where('idArticle', '=', idArticle)
    .where('count', '=', n)
    .executeTakeFirst();
  return whole.numDeletedRows === 1n;
}

export interface ReservationLine {
  idReservation: number;
  /** Copies held. */
  reserved: number;
  view: ArticleView;
}

/** The lines of these reservations, with the article as every feature shows it. */
export async function reservationLines(db: Executor, idReservations: number[]): Promise<ReservationLine[]> {
  if (idReservations.length === 0) return [];
  const rows = (await linesOf(db, idReservations, true)).rows as unknown as Array<{
    ra_idReservation: number;
    packed: string | null;
  }>;
  const lines = new Array<ReservationLine>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const row = cartLinePacking().unpack(rows[i]!.packed);
    // A text holding the separator: the lines are read again the ordinary way (rare).
    if (row === undefined) return plainReservationLines(db, idReservations);
    lines[i] = { idReservation: rows[i]!.ra_idReservation, reserved: row.ra_count, view: articleViewOf(row) };
  }
  return lines;
}

async function plainReservationLines(db: Executor, idReservations: number[]): Promise<ReservationLine[]> {
  const rows = (await linesOf(db, idReservations, false)).rows as unknown as Array<
    FlatRow & { ra_idReservation: number; ra_count: number }
  >;
  return rows.map((row) => ({
    idReservation: row.ra_idReservation,
    reserved: row.ra_count,
    view: articleViewOf(row),
  }));
}

/**
 * A cart line (its article's view and the copies held) packed into one text (`packedRow`): a
 * checkout reads 100 lines of some 30 values, and better-sqlite3 handing each value to JavaScript
 * on its own cost more than the rest of the read.
 */
function cartLinePacking(): PackedRow<FlatRow & { ra_count: number }> {
  // Built on first use: articles.ts imports this module, so its columns may not exist yet at load.
  return (packedCartLine ??= packedRow([...ARTICLE_VIEW_PACKED, ['ra_count', 'integer', 'ra.count']]));
}
let packedCartLine: PackedRow<FlatRow & { ra_count: number }> | undefined;

// A cart's view and its checkout read every line: compiled once per number of reservations.
const linesOf = preparedBySize(
  (db: Executor, idReservations: number[], packed: boolean) =>
    articleViewJoins(db)
      .innerJoin('reservationArticles as ra', 'ra.idArticle', 'a.idArticle')
      .select('ra.idReservation as ra_idReservation')
      .$if(packed, (q) => q.select(cartLinePacking().select().as('packed')))
      .$if(!packed, (q) => q.selectAll('a').select(PRODUCT_FACT_COLUMNS).select('ra.count as ra_count'))
      .where('ra.idReservation', 'in', idReservations)
      .orderBy('ra.idReservation')
      .orderBy('a.idArticle')
      .compile(),
  (idReservations, packed) => idReservations.length * 2 + (packed ? 1 : 0),
  (idReservations) => idReservations,
);

/**
 * Locks a reservation's row for the rest of the transaction (a no-op update), optionally only if it
 * has expired by `expiredAt`; undefined when it is gone (or not expired). Every change to a
 * reservation's lines takes this lock first, adding included (its upsert locks the row), so on
 * PostgreSQL a release, a checkout and an add of one reservation happen one after the other, and
 * a release decided on a stale read of the expiry finds the reservation renewed and leaves it.
 */
export async function lockReservation(
  db: Executor,
  idReservation: number,
  expiredAt?: number,
): Promise<Reservation | undefined> {
  if (expiredAt === undefined) return (await lockOne(db, idReservation)).rows[0];
  let q = db
    .updateTable('reservations')
    .set((eb) => ({ expiresAt: eb.ref('expiresAt') }))
    .where('idReservation', '=', idReservation);
  if (expiredAt !== undefined) q = q.where('expiresAt', '<=', expiredAt);
  return q.returningAll().executeTakeFirst();
}

const lockOne = preparedBySize(
  (db: Executor, idReservation: number) =>
    db
      .updateTable('reservations')
      .set((eb) => ({ expiresAt: eb.ref('expiresAt') }))
      .where('idReservation', '=', idReservation)
      .returningAll()
      .compile(),
  () => 1,
  (idReservation) => [idReservation],
);

/**
 * Takes every line out of a (locked) reservation and returns what was taken: only copies actually
 * removed here are put anywhere else, so two transactions can never both move the same copies.
 */
export async function claimReservationLines(db: Executor, idReservation: number) {
  return (await claimLines(db, idReservation)).rows;
}

const claimLines = preparedBySize(
  (db: Executor, idReservation: number) =>
    db
      .deleteFrom('reservationArticles')
      .where('idReservation', '=', idReservation)
      .returning(['idArticle', 'count'])
      .compile(),
  () => 1,
  (idReservation) => [idReservation],
);

export async function reservationHoldsAny(db: Executor, idReservation: number): Promise<boolean> {
  const row = await db
    .selectFrom('reservationArticles')
    .select('idArticle')
    .where('idReservation', '=', idReservation)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export async function deleteReservation(db: Executor, idReservation: number): Promise<void> {
  await db.deleteFrom('reservationArticles').where('idReservation', '=', idReservation).execute();
  await db.deleteFrom('reservations').where('idReservation', '=', idReservation).execute();
}

/**
 * Deletes a reservation whose lines were all claimed (`claimReservationLines`) under its lock: only
 * its row is left. Were a line still there, the foreign key would refuse the delete (and the
 * transaction roll back) rather than leave the line behind.
 */
export async function deleteClaimedReservation(db: Executor, idReservation: number): Promise<void> {
  await deleteOne(db, idReservation);
}

const deleteOne = preparedBySize(
  (db: Executor, idReservation: number) =>
    db.deleteFrom('reservations').where('idReservation', '=', idReservation).compile(),
  () => 1,
  (idReservation) => [idReservation],
);

/** Reservations past their expiry (a buyer's, or anyone's), oldest first. */
export async function expiredReservations(
  db: Executor,
  now: number,
  options: { idBuyer?: number; limit?: number } = {},
): Promise<Reservation[]> {
  if (options.idBuyer !== undefined && options.limit === undefined) {
    return (await expiredOfBuyer(db, now, options.idBuyer)).rows;
  }
  let q = db.selectFrom('reservations').selectAll().where('expiresAt', '<=', now);
  if (options.idBuyer !== undefined) q = q.where('idBuyer', '=', options.idBuyer);
  return q
    .orderBy('expiresAt')
    .limit(options.limit ?? 1000)
    .execute();
}

// Every checkout and cart change asks it for its buyer first.
const expiredOfBuyer = preparedBySize(
  (db: Executor, now: number, idBuyer: number) =>
    db
      .selectFrom('reservations')
      .selectAll()
      .where('expiresAt', '<=', now)
      .where('idBuyer', '=', idBuyer)
      .orderBy('expiresAt')
      .limit(sql.lit(1000))
      .compile(),
  () => 1,
  (now, idBuyer) => [now, idBuyer],
);

export async function sellerReservations(db: Executor, idSeller: number): Promise<Reservation[]> {
  return db.selectFrom('reservations').selectAll().where('idSeller', '=', idSeller).execute();
}

/** Expired reservations that hold copies of any of these articles (released before an add). */
export async function expiredReservationsHoldingAny(
  db: Executor,
  idArticles: number[],
  now: number,
): Promise<Reservation[]> {
  if (idArticles.length === 0) return [];
  return db
    .selectFrom('reservations as r')
    .selectAll('r')
    .where('r.expiresAt', '<=', now)
    .where('r.idReservation', 'in', (eb) =>
      eb
        .selectFrom('reservationArticles as ra')
        .select('ra.idReservation')
        .where('ra.idArticle', 'in', idArticles),
    )
    .execute();
}

/** The buyer's reservation that holds this article, if any. */
export async function buyerReservationHolding(
  db: Executor,
  idBuyer: number,
  idArticle: number,
): Promise<(Reservation & { reserved: number }) | undefined> {
  return db
    .selectFrom('reservations as r')
    .innerJoin('reservationArticles as ra', 'ra.idReservation', 'r.idReservation')
    .selectAll('r')
    .select('ra.count as reserved')
    .where('r.idBuyer', '=', idBuyer)
    .where('ra.idArticle', '=', idArticle)
    .executeTakeFirst();
}

/** A postal address as a cart's shipping address stores it. */
export type PostalAddress = Omit<CartShippingAddressesTable, 'idUser'>;

export async function cartShippingAddress(db: Executor, idBuyer: number): Promise<PostalAddress | undefined> {
  return (await shippingAddressRow(db, idBuyer)).rows[0];
}

const shippingAddressRow = preparedBySize(
  (db: Executor, idBuyer: number) =>
    db
      .selectFrom('cartShippingAddresses')
      .select(['name', 'extra', 'street', 'zip', 'city', 'country'])
      .where('idUser', '=', idBuyer)
      .compile(),
  () => 1,
  (idBuyer) => [idBuyer],
);

export async function putCartShippingAddress(db: Executor, idBuyer: number, a: PostalAddress): Promise<void> {
  await db
    .insertInto('cartShippingAddresses')
    .values({ idUser: idBuyer, ...a })
    .onConflict((oc) => oc.column('idUser').doUpdateSet({ ...a }))
    .execute();
}

/**
 * Locks these articles' rows. A checkout takes them before it claims its lines, so two checkouts of
 * the last reserved copies of one article run one after the other, and the second sees the first's
 * lines gone and deletes the sold-out article (else each would see the other's reservation and
 * neither would). On PostgreSQL a `select … for update` in id order (a no-op update of a hundred
 * rows wrote a hundred new row versions and their WAL: a sixth of the checkout's time there). On
 * SQLite every write transaction already runs alone (`begin immediate`), so there is nothing to take.
 */
export async function lockArticles(db: Executor, idArticles: number[]): Promise<void> {
  if (idArticles.length === 0 || db.getExecutor().adapter instanceof SqliteAdapter) return;
  const ids = [...new Set(idArticles)].sort((a, b) => a - b);
  await lockRows(db, ids);
}

const lockRows = preparedBySize(
  (db: Executor, ids: number[]) =>
    db
      .selectFrom('articles')
      .select('idArticle')
      .where('idArticle', 'in', ids)
      .orderBy('idArticle')
      .forUpdate()
      .compile(),
  (ids) => ids.length,
  (ids) => ids,
);

import { sql } from 'kysely';
import type { Executor } from './db.js';
import { preparedBySize } from './prepared.js';
import { offers } from './offers.js';
import type { Want, Wantslist } from './schema.js';

/** Wants lists and their items, and the marketplace facts their rules and rendering need. */

export interface GameFacts {
  idGame: number;
  name: string;
  abbreviation: string;
}

export interface WantslistRow extends Wantslist {
  game: GameFacts;
  itemCount: number;
}

function wantslistRows(db: Executor) {
  return db
    .selectFrom('wantslists as l')
    .innerJoin('games as g', 'g.idGame', 'l.idGame')
    .selectAll('l')
    .select([
      'g.name as gameName',
      'g.abbreviation as gameAbbreviation',
      (eb) =>
        eb
          .selectFrom('wants as w')
          .select((e) => e.fn.countAll<number>().as('n'))
          .whereRef('w.idWantslist', '=', 'l.idWantslist')
          .as('itemCount'),
    ]);
}

type FlatWantslist = Wantslist & { gameName: string; gameAbbreviation: string; itemCount: number | null };

function toWantslistRow({ gameName, gameAbbreviation, itemCount, ...list }: FlatWantslist): WantslistRow {
  return {
    ...list,
    game: { idGame: list.idGame, name: gameName, abbreviation: gameAbbreviation },
    itemCount: Number(itemCount ?? 0),
  };
}

export async function wantslistsOfUser(db: Executor, idUser: number): Promise<WantslistRow[]> {
  const rows = await wantslistRows(db).where('l.idUser', '=', idUser).orderBy('l.idWantslist').execute();
  return rows.map((r) => toWantslistRow(r as FlatWantslist));
}

export async function findWantslist(db: Executor, idWantslist: number): Promise<WantslistRow | undefined> {
  const row = await wantslistRows(db).where('l.idWantslist', '=', idWantslist).executeTakeFirst();
  return row ? toWantslistRow(row as FlatWantslist) : undefined;
}

export async function countWantslists(db: Executor, idUser: number): Promise<number> {
  const row = await db
    .selectFrom('wantslists')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('idUser', '=', idUser)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Whether the user has another list of that name (compared without case). */
export async function wantslistNameTaken(
  db: Executor,
  idUser: number,
  name: string,
  exceptId?: number,
): Promise<boolean> {
  const row = await db
    .selectFrom('wantslists')
    .select('idWantslist')
    .where('idUser', '=', idUser)
    .where(sql`lower(name)`, '=', name.toLowerCase())
    .$if(exceptId !== undefined, (q) => q.where('idWantslist', '<>', exceptId!))
    .executeTakeFirst();
  return row !== undefined;
}

export async function findGame(db: Executor, idGame: number): Promise<GameFacts | undefined> {
  return db.selectFrom('games').selectAll().where('idGame', '=', idGame).executeTakeFirst();
}

export async function insertWantslist(
  db: Executor,
  list: { idUser: number; idGame: number; name: string; createdAt: number },
): Promise<number> {
  const row = await db
    .insertInto('wantslists')
    .values(list)
    .returning('idWantslist')
    .executeTakeFirstOrThrow();
  return row.idWantslist;
}

export async function renameWantslist(db: Executor, idWantslist: number, name: string): Promise<void> {
  await db.updateTable('wantslists').set({ name }).where('idWantslist', '=', idWantslist).execute();
}

export async function deleteWantslistRow(db: Executor, idWantslist: number): Promise<void> {
  await db.deleteFrom('wants').where('idWantslist', '=', idWantslist).execute();
  await db.deleteFrom('wantslists').where('idWantslist', '=', idWantslist).execute();
}

export async function wantsOfList(db: Executor, idWantslist: number): Promise<Want[]> {
  return db.selectFrom('wants').selectAll().where('idWantslist', '=', idWantslist).orderBy('seq').execute();
}

export async function countWants(db: Executor, idWantslist: number): Promise<number> {
  const row = await db
    .selectFrom('wants')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('idWantslist', '=', idWantslist)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function findWantInList(
  db: Executor,
  idWantslist: number,
  idWant: string,
): Promise<Want | undefined> {
  return db
    .selectFrom('wants')
    .selectAll()
    .where('idWantslist', '=', idWantslist)
    .where('idWant', '=', idWant)
    .executeTakeFirst();
}

export type NewWant = Omit<Want, 'seq'>;

export async function insertWant(db: Executor, want: NewWant): Promise<void> {
  await db.insertInto('wants').values(want).execute();
}

export async function updateWant(db: Executor, seq: number, changes: Partial<NewWant>): Promise<void> {
  await db.updateTable('wants').set(changes).where('seq', '=', seq).execute();
}

export async function deleteWant(db: Executor, seq: number): Promise<void> {
  await db.deleteFrom('wants').where('seq', '=', seq).execute();
}

// ---------------------------------------------------------------------------------------------
// Catalog facts

export interface TargetProduct {
  idProduct: number;
  idGame: number;
  idMetaproduct: number | null;
  enName: string;
}

export async function findTargetProduct(db: Executor, idProduct: number): Promise<TargetProduct | undefined> {
  return db
    .selectFrom('products')
    .select(['idProduct', 'idGame', 'idMetaproduct', 'enName'])
    .where('idProduct', '=', idProduct)
    .executeTakeFirst();
}

/** The metaproduct, and whether it groups any product of that game. */
export async function findTargetMetaproduct(
  db: Executor,
  idMetaproduct: number,
  idGame: number,
): Promise<{ enName: string; inGame: boolean } | undefined> {
  const meta = await db
    .selectFrom('metaproducts')
    .select('enName')
    .where('idMetaproduct', '=', idMetaproduct)
    .executeTakeFirst();
  if (!meta) return undefined;
  const product = await db
    .selectFrom('products')
    .select('idProduct')
    .where('idMetaproduct', '=', idMetaproduct)
    .where('idGame', '=', idGame)
    .limit(1)
    .executeTakeFirst();
  return { enName: meta.enName, inGame: product !== undefined };
}

/** What a want matches: a product, or any product of a metaproduct within the list's game. */
export type WantTarget = { idProduct: number } | { idMetaproduct: number; idGame: number };

export interface OfferFilter {
  /** Empty: any language. */
  languages: number[];
  /** Conditions accepted for single cards (null: any). */
  conditions: string[] | null;
  flags: Partial<Record<'isFoil' | 'isSigned' | 'isAltered' | 'isFirstEd', boolean>>;
  /** The want's owner: one's own offers are not offers to oneself. */
  excludeSeller: number;
}

/**
 * The lowest price (cents) among the offers a buyer with this want could buy now: copies available
 * (count > 0), from sellers not on vacation, matching the want's language, condition (singles) and
 * flags. Uses the articles-by-product-and-price index.
 */
export async function lowestOffer(
  db: Executor,
  target: WantTarget,
  filter: OfferFilter,
): Promise<number | null> {
  const row = await matchingOffers(db, target, filter)
    .select((eb) => eb.fn.min<number>('a.price').as('low'))
    .executeTakeFirst();
  return row?.low === null || row?.low === undefined ? null : Number(row.low);
}

/** The offers a want accepts (the same conditions as `lowestOffer`), before the select. */
function matchingOffers(db: Executor, target: WantTarget, filter: OfferFilter) {
  let q = offers(db)
    .innerJoin('products as p', 'p.idProduct', 'a.idProduct')
    .where('a.idUser', '<>', filter.excludeSeller);
  q =
    'idProduct' in target
      ? q.where('a.idProduct', '=', target.idProduct)
      : q.where('p.idMetaproduct', '=', target.idMetaproduct).where('p.idGame', '=', target.idGame);
  if (filter.languages.length > 0) q = q.where('a.idLanguage', 'in', filter.languages);
  if (filter.conditions) {
    const conditions = filter.conditions;
    q = q.where((eb) => eb.or([eb('p.isSingle', '=', 0), eb('a.condition', 'in', conditions)]));
  }
  for (const [flag, value] of Object.entries(filter.flags)) {
    q = q.where(`a.${flag as 'isFoil'}`, '=', value ? 1 : 0);
  }
  return q;
}

/** How many offers a want accepts, and one page of their ids, cheapest first. */
export async function matchingOfferPage(
  db: Executor,
  target: WantTarget,
  filter: OfferFilter,
  offset: number,
  limit: number,
): Promise<{ total: number; idArticles: number[] }> {
  const counted = await matchingOffers(db, target, filter)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirst();
  const total = Number(counted?.n ?? 0);
  if (total === 0 || offset >= total) return { total, idArticles: [] };
  const rows = await matchingOffers(db, target, filter)
    .select('a.idArticle')
    .orderBy('a.price')
    .orderBy('a.idArticle')
    .offset(offset)
    .limit(limit)
    .execute();
  return { total, idArticles: rows.map((r) => r.idArticle) };
}

/** The price guide's SELL (cents): of the product, or the lowest among the metaproduct's products. */
export async function averageSell(db: Executor, target: WantTarget): Promise<number | null> {
  let q = db
    .selectFrom('priceGuides as g')
    .innerJoin('products as p', 'p.idProduct', 'g.idProduct')
    .select((eb) => eb.fn.min<number>('g.sell').as('sell'))
    .where('g.sell', 'is not', null)
    .where('g.sell', '>', 0);
  q =
    'idProduct' in target
      ? q.where('g.idProduct', '=', target.idProduct)
      : q.where('p.idMetaproduct', '=', target.idMetaproduct).where('p.idGame', '=', target.idGame);
  const row = await q.executeTakeFirst();
  return row?.sell === null || row?.sell === undefined ? null : Number(row.sell);
}

// ---------------------------------------------------------------------------------------------
// Mail alerts

export interface AlertWant extends Want {
  idUser: number;
  listName: string;
}

/** Several products' facts a want matches on, by id (absent ids do not exist). */
export async function targetProducts(
  db: Executor,
  idProducts: number[],
): Promise<Map<number, TargetProduct>> {
  const ids = [...new Set(idProducts)];
  if (ids.length === 0) return new Map();
  const { rows } = await targetProductRows(db, ids);
  return new Map(rows.map((r) => [r.idProduct, r]));
}

// A bulk stock write lists a hundred articles, and the alert reads their products and wants on
// every delivery: both statements are compiled once per length of their lists.
const targetProductRows = preparedBySize(
  (db: Executor, ids: number[]) =>
    db
      .selectFrom('products')
      .select(['idProduct', 'idGame', 'idMetaproduct', 'enName'])
      .where('idProduct', 'in', ids)
      .compile(),
  (ids) => ids.length,
  (ids) => ids,
);

/**
 * Every want on any of these products or metaproducts, in want order (`alertWants` of several
 * listed articles at once: the caller keeps, per article, the wants `alertWants` would return).
 */
export async function alertWantsOfAny(
  db: Executor,
  idProducts: number[],
  idMetaproducts: number[],
): Promise<Array<AlertWant & { listGame: number }>> {
  const products = [...new Set(idProducts)];
  const metas = [...new Set(idMetaproducts)];
  if (products.length === 0) return [];
  return (await wantsOfAny(db, products, metas)).rows;
}

const wantsOfAny = preparedBySize(
  (db: Executor, products: number[], metas: number[]) =>
    db
      .selectFrom('wants as w')
      .innerJoin('wantslists as l', 'l.idWantslist', 'w.idWantslist')
      .selectAll('w')
      .select(['l.idUser', 'l.name as listName', 'l.idGame as listGame'])
      .where((eb) =>
        metas.length === 0
          ? eb('w.idProduct', 'in', products)
          : eb.or([eb('w.idProduct', 'in', products), eb('w.idMetaproduct', 'in', metas)]),
      )
      .orderBy('w.seq')
      .compile(),
  // Distinct for every pair of lengths (a request carries at most a few hundred of each).
  (products, metas) => products.length * 1_000_000 + metas.length,
  (products, metas) => [...products, ...metas],
);

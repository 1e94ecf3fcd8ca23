import { ApiError, badRequest, notFound } from '../errors.js';
import { type ArticleView, loadArticleViews } from '../store/articles.js';
import type { Executor } from '../store/db.js';
import type { Want } from '../store/schema.js';
import {
  loadMetaproducts,
  loadProductInfos,
  type MetaproductInfo,
  type ProductInfo,
} from '../store/products.js';
import { findUserById, usersByIds } from '../store/users.js';
import {
  averageSell,
  countWants,
  countWantslists,
  deleteWant,
  deleteWantslistRow,
  findGame,
  findTargetMetaproduct,
  findTargetProduct,
  findWantInList,
  findWantslist,
  insertWant,
  insertWantslist,
  lowestOffer,
  matchingOfferPage,
  type NewWant,
  type OfferFilter,
  renameWantslist,
  updateWant,
  type WantslistRow,
  type WantTarget,
  wantslistNameTaken,
  wantslistsOfUser,
  wantsOfList,
} from '../store/wants.js';
import { CONDITIONS, conditionRank, gameRules } from './catalog.js';
import type { DomainContext } from './context.js';
import { newHexId } from './hex-id.js';
import { resolveWishPrice, type WishPriceCode } from './wish-price.js';

/**
 * Wants lists (reference §1.7, §2.17). Rules chosen where the sources are silent:
 *  - a user has at most MAX_WANTSLISTS lists, a list at most MAX_ITEMS items (so a list is one
 *    response, never paginated), and one request adds at most MAX_ITEMS_PER_REQUEST items;
 *  - list names are 1 to MAX_NAME_LENGTH characters and unique per user (ignoring case);
 *  - an item is a product or a metaproduct of the list's game; its filters default to any
 *    language, any condition (`PO`) and either value of each flag (null); a flag set to true that
 *    the game's cards cannot have is refused;
 *  - a write request is one transaction: an item that cannot be written (unknown product, wrong
 *    game, a wish price code that cannot resolve) is a 400 naming it, and nothing is written.
 */
export const MAX_WANTSLISTS = 100;
export const MAX_ITEMS = 500;
export const MAX_ITEMS_PER_REQUEST = 100;
export const MAX_NAME_LENGTH = 64;
export const MAX_WANT_COUNT = 9999;
export const DEFAULT_MIN_CONDITION = 'PO';

export type WantFlag = 'isFoil' | 'isSigned' | 'isAltered' | 'isFirstEd';
export const WANT_FLAGS: readonly WantFlag[] = ['isFoil', 'isSigned', 'isAltered', 'isFirstEd'];
export type FlagChoice = boolean | null;

export interface WantView {
  want: Want;
  idGame: number;
  /** The owner's display language: what `locName` of the product or metaproduct is written in. */
  idLanguage: number;
  /** Cents: the lowest offer matching the want now, null when there is none. */
  fromPrice: number | null;
  product?: ProductInfo;
  metaproduct?: MetaproductInfo;
}

export interface WantslistDetail {
  list: WantslistRow;
  items: WantView[];
}

export interface AddItemInput {
  /** How errors name the item, e.g. `<product> 2 (idProduct 265882)`. */
  label: string;
  target: { type: 'product'; idProduct: number } | { type: 'metaproduct'; idMetaproduct: number };
  count: number;
  wishPrice?: WishPriceCode;
  mailAlert: boolean;
  languages: number[];
  minCondition?: string;
  flags: Partial<Record<WantFlag, FlagChoice>>;
}

export interface EditItemInput {
  label: string;
  idWant: string;
  count?: number;
  wishPrice?: WishPriceCode;
  mailAlert?: boolean;
  languages?: number[];
  minCondition?: string;
  flags: Partial<Record<WantFlag, FlagChoice>>;
}

export type WantslistChange =
  | { action: 'editWantslist'; name: string }
  | { action: 'addItem'; items: AddItemInput[] }
  | { action: 'editItem'; items: EditItemInput[] }
  | { action: 'deleteItem'; items: Array<{ label: string; idWant: string }> };

// ---------------------------------------------------------------------------------------------
// Matching: the one place that says which offers a want accepts (FROM, fromPrice, mail alerts).

export function wantLanguages(want: Pick<Want, 'idLanguages'>): number[] {
  return want.idLanguages === '' ? [] : want.idLanguages.split(',').map(Number);
}

/** The conditions a want accepts for single cards, best first; null when any is fine. */
function acceptedConditions(minCondition: string): string[] | null {
  const rank = conditionRank(minCondition);
  return rank < 0 || rank === CONDITIONS.length - 1 ? null : CONDITIONS.slice(0, rank + 1);
}

function wantFlags(want: Pick<Want, WantFlag>): Partial<Record<WantFlag, boolean>> {
  const flags: Partial<Record<WantFlag, boolean>> = {};
  for (const flag of WANT_FLAGS) if (want[flag] !== null) flags[flag] = want[flag] === 1;
  return flags;
}

function offerFilter(want: Want, owner: number): OfferFilter {
  return {
    languages: wantLanguages(want),
    conditions: acceptedConditions(want.minCondition),
    flags: wantFlags(want),
    excludeSeller: owner,
  };
}

function wantTarget(want: Pick<Want, 'idProduct' | 'idMetaproduct'>, idGame: number): WantTarget {
  return want.idProduct !== null
    ? { idProduct: want.idProduct }
    : { idMetaproduct: want.idMetaproduct!, idGame };
}

/** Whether an offer with these properties is one the want accepts (price aside). */
export function offerMatchesWant(
  want: Want,
  offer: {
    idLanguage: number;
    condition: string | null;
    isSingle: boolean;
  } & Record<WantFlag, number>,
): boolean {
  const languages = wantLanguages(want);
  if (languages.length > 0 && !languages.includes(offer.idLanguage)) return false;
  const conditions = acceptedConditions(want.minCondition);
  if (conditions && offer.isSingle && !(offer.condition !== null && conditions.includes(offer.condition))) {
    return false;
  }
  for (const [flag, value] of Object.entries(wantFlags(want))) {
    if ((offer[flag as WantFlag] === 1) !== value) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Reading

/** A user's lists have names of their own (`except`: the list being renamed). */
async function requireFreeName(db: Executor, idUser: number, name: string, except?: number): Promise<void> {
  if (await wantslistNameTaken(db, idUser, name, except)) {
    throw badRequest(`You have a wants list named "${name}" already.`, {
      field: 'name',
      reason: 'wantslist_name_taken',
    });
  }
}

async function ownedList(db: Executor, idUser: number, idWantslist: number): Promise<WantslistRow> {
  const list = await findWantslist(db, idWantslist);
  // Another user's list is as unknown as one that does not exist.
  if (!list || list.idUser !== idUser)
    throw notFound(`You have no wants list ${idWantslist}.`, { reason: 'unknown_wants_list' });
  return list;
}

async function displayLanguage(db: Executor, idUser: number): Promise<number> {
  return (await findUserById(db, idUser))?.idDisplayLanguage ?? 1;
}

async function detail(db: Executor, idUser: number, list: WantslistRow): Promise<WantslistDetail> {
  const wants = await wantsOfList(db, list.idWantslist);
  const idLanguage = await displayLanguage(db, idUser);
  // The catalog's own loaders, so a product or metaproduct in a want is the one the catalog shows.
  const unique = (ids: Array<number | null>) => [...new Set(ids.filter((id): id is number => id !== null))];
  const products = new Map(
    (await loadProductInfos(db, unique(wants.map((w) => w.idProduct)))).map((p) => [p.product.idProduct, p]),
  );
  const metaproducts = new Map(
    (await loadMetaproducts(db, unique(wants.map((w) => w.idMetaproduct)))).map((m) => [m.idMetaproduct, m]),
  );
  const items: WantView[] = [];
  for (const want of wants) {
    items.push({
      want,
      idGame: list.idGame,
      idLanguage,
      fromPrice: await lowestOffer(db, wantTarget(want, list.idGame), offerFilter(want, idUser)),
      product: want.idProduct === null ? undefined : products.get(want.idProduct),
      metaproduct: want.idMetaproduct === null ? undefined : metaproducts.get(want.idMetaproduct),
    });
  }
  return { list: { ...list, itemCount: wants.length }, items };
}

export async function listWantslists(ctx: DomainContext, idUser: number): Promise<WantslistRow[]> {
  return wantslistsOfUser(ctx.database.db, idUser);
}

export async function getWantslist(
  ctx: DomainContext,
  idUser: number,
  idWantslist: number,
): Promise<WantslistDetail> {
  const db = ctx.database.db;
  return detail(db, idUser, await ownedList(db, idUser, idWantslist));
}

// ---------------------------------------------------------------------------------------------
// Lists

function checkName(raw: string | undefined): string {
  const name = (raw ?? '').trim();
  if (name === '') throw badRequest('A wants list needs a name.', { field: 'name', reason: 'required' });
  if (name.length > MAX_NAME_LENGTH) {
    throw badRequest(`A wants list name has at most ${MAX_NAME_LENGTH} characters.`, {
      field: 'name',
      reason: 'too_long_max',
      params: { max: MAX_NAME_LENGTH },
    });
  }
  return name;
}

export interface NewWantslistInput {
  idGame: string | undefined;
  name: string | undefined;
}

export interface FailedWantslist {
  error: string;
  /** The input field at fault, when the error names one (the website shows it there). */
  field?: string;
  /** The error itself, for the website's texts (never on the wire). */
  cause?: ApiError;
  name: string | null;
  idGame: string | null;
}

/** Creates each list it can; the others are reported, and do not stop the rest. */
export async function createWantslists(
  ctx: DomainContext,
  idUser: number,
  inputs: NewWantslistInput[],
): Promise<{ created: WantslistRow[]; failed: FailedWantslist[] }> {
  if (inputs.length === 0) {
    throw badRequest('Send at least one <wantslist> with <idGame> and <name>.', { field: 'wantslist' });
  }
  if (inputs.length > MAX_WANTSLISTS) {
    throw badRequest(`At most ${MAX_WANTSLISTS} wants lists per request.`, { field: 'wantslist' });
  }
  return ctx.database.transaction(async (tx) => {
    const created: WantslistRow[] = [];
    const failed: FailedWantslist[] = [];
    let count = await countWantslists(tx, idUser);
    for (const input of inputs) {
      try {
        const name = checkName(input.name);
        const idGameText = (input.idGame ?? '').trim();
        if (!/^\d{1,9}$/.test(idGameText))
          throw badRequest('idGame must be a game id.', { field: 'idGame', reason: 'unknown_game' });
        const game = await findGame(tx, Number(idGameText));
        if (!game)
          throw badRequest(`There is no game ${idGameText}.`, { field: 'idGame', reason: 'unknown_game' });
        if (count >= MAX_WANTSLISTS)
          throw badRequest(`You have the maximum of ${MAX_WANTSLISTS} wants lists.`, {
            reason: 'wantslists_max',
            params: { max: MAX_WANTSLISTS },
          });
        await requireFreeName(tx, idUser, name);
        const id = await insertWantslist(tx, {
          idUser,
          idGame: game.idGame,
          name,
          createdAt: ctx.clock.now(),
        });
        count++;
        created.push((await findWantslist(tx, id))!);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        failed.push({
          error: err.message,
          ...(err.field ? { field: err.field } : {}),
          cause: err,
          name: input.name ?? null,
          idGame: input.idGame ?? null,
        });
      }
    }
    return { created, failed };
  });
}

/** Deletes the list and its items; answers the lists left. */
export async function deleteWantslist(
  ctx: DomainContext,
  idUser: number,
  idWantslist: number,
): Promise<WantslistRow[]> {
  return ctx.database.transaction(async (tx) => {
    await ownedList(tx, idUser, idWantslist);
    await deleteWantslistRow(tx, idWantslist);
    return wantslistsOfUser(tx, idUser);
  });
}

export async function updateWantslist(
  ctx: DomainContext,
  idUser: number,
  idWantslist: number,
  change: WantslistChange,
): Promise<WantslistDetail> {
  return ctx.database.transaction(async (tx) => {
    const list = await ownedList(tx, idUser, idWantslist);
    const now = ctx.clock.now();
    switch (change.action) {
      case 'editWantslist': {
        const name = checkName(change.name);
        await requireFreeName(tx, idUser, name, idWantslist);
        await renameWantslist(tx, idWantslist, name);
        break;
      }
      case 'addItem':
        checkItemCount(change.items.length, change.action);
        if ((await countWants(tx, idWantslist)) + change.items.length > MAX_ITEMS) {
          throw badRequest(`A wants list holds at most ${MAX_ITEMS} items.`, {
            field: 'product',
            reason: 'wants_items_max',
            params: { max: MAX_ITEMS },
          });
        }
        for (const item of change.items) await addItem(tx, idUser, list, item, now);
        break;
      case 'editItem':
        checkItemCount(change.items.length, change.action);
        for (const item of change.items) await editItem(tx, idUser, list, item);
        break;
      case 'deleteItem':
        checkItemCount(change.items.length, change.action);
        for (const item of change.items) {
          const want = await findWantInList(tx, idWantslist, item.idWant);
          if (!want) throw noSuchWant(item.label, item.idWant, idWantslist);
          await deleteWant(tx, want.seq);
        }
        break;
    }
    return detail(tx, idUser, (await findWantslist(tx, idWantslist))!);
  });
}

// ---------------------------------------------------------------------------------------------
// Items

function checkItemCount(n: number, action: string): void {
  const field = action === 'addItem' ? 'product' : 'want';
  if (n === 0) throw badRequest(`${action} needs at least one item.`, { field });
  if (n > MAX_ITEMS_PER_REQUEST) {
    throw badRequest(`At most ${MAX_ITEMS_PER_REQUEST} items per request.`, { field });
  }
}

function itemError(label: string, message: string, field?: string, reason?: string): ApiError {
  return badRequest(`${label}: ${message}`, { field, reason });
}

function noSuchWant(label: string, idWant: string, idWantslist: number): ApiError {
  return itemError(label, `wants list ${idWantslist} has no item ${idWant}.`, 'idWant', 'unknown_want');
}

function checkFlags(
  label: string,
  flags: Partial<Record<WantFlag, FlagChoice>>,
  idGame: number,
  gameName: string,
) {
  const allowed = gameRules(idGame).flags;
  for (const [flag, value] of Object.entries(flags)) {
    if (value === true && !allowed.includes(flag as WantFlag)) {
      throw itemError(label, `${flag} does not apply to ${gameName} cards.`, flag, 'flag_other_game');
    }
  }
}

function flagColumns(flags: Partial<Record<WantFlag, FlagChoice>>): Partial<Record<WantFlag, number | null>> {
  const out: Partial<Record<WantFlag, number | null>> = {};
  for (const [flag, value] of Object.entries(flags)) {
    out[flag as WantFlag] = value === null || value === undefined ? null : value ? 1 : 0;
  }
  return out;
}

async function resolveFor(
  db: Executor,
  label: string,
  code: WishPriceCode,
  want: NewWant,
  idGame: number,
  owner: number,
): Promise<number> {
  const target = wantTarget(want, idGame);
  const result = await resolveWishPrice(code, {
    current: want.wishPrice,
    lowestOffer: () => lowestOffer(db, target, offerFilter(want as Want, owner)),
    averageSell: () => averageSell(db, target),
  });
  if ('error' in result) throw itemError(label, `${result.error}.`, 'wishPrice', result.reason);
  return result.cents;
}

async function addItem(
  db: Executor,
  owner: number,
  list: WantslistRow,
  item: AddItemInput,
  now: number,
): Promise<void> {
  const { label, target } = item;
  if (target.type === 'product') {
    const product = await findTargetProduct(db, target.idProduct);
    if (!product)
      throw itemError(label, `there is no product ${target.idProduct}.`, 'idProduct', 'unknown_product');
    if (product.idGame !== list.idGame) {
      throw itemError(
        label,
        `product ${target.idProduct} is not a ${list.game.name} product; this list is for ${list.game.name}.`,
        'idProduct',
        'product_other_game',
      );
    }
  } else {
    const meta = await findTargetMetaproduct(db, target.idMetaproduct, list.idGame);
    if (!meta)
      throw itemError(
        label,
        `there is no metaproduct ${target.idMetaproduct}.`,
        'idMetaproduct',
        'unknown_product',
      );
    if (!meta.inGame) {
      throw itemError(
        label,
        `metaproduct ${target.idMetaproduct} has no ${list.game.name} products; this list is for ${list.game.name}.`,
        'idMetaproduct',
        'product_other_game',
      );
    }
  }
  checkFlags(label, item.flags, list.idGame, list.game.name);
  const want: NewWant = {
    idWant: newHexId(),
    idWantslist: list.idWantslist,
    idProduct: target.type === 'product' ? target.idProduct : null,
    idMetaproduct: target.type === 'metaproduct' ? target.idMetaproduct : null,
    count: item.count,
    wishPrice: 0,
    mailAlert: item.mailAlert ? 1 : 0,
    idLanguages: [...new Set(item.languages)].join(','),
    minCondition: item.minCondition ?? DEFAULT_MIN_CONDITION,
    isFoil: null,
    isSigned: null,
    isAltered: null,
    isFirstEd: null,
    ...flagColumns(item.flags),
    createdAt: now,
  };
  if (item.wishPrice) want.wishPrice = await resolveFor(db, label, item.wishPrice, want, list.idGame, owner);
  await insertWant(db, want);
}

async function editItem(db: Executor, owner: number, list: WantslistRow, item: EditItemInput): Promise<void> {
  const { label } = item;
  const existing = await findWantInList(db, list.idWantslist, item.idWant);
  if (!existing) throw noSuchWant(label, item.idWant, list.idWantslist);
  checkFlags(label, item.flags, list.idGame, list.game.name);
  const { seq: _seq, ...current } = existing;
  const next: NewWant = { ...current, ...flagColumns(item.flags) };
  if (item.count !== undefined) next.count = item.count;
  if (item.mailAlert !== undefined) next.mailAlert = item.mailAlert ? 1 : 0;
  if (item.languages !== undefined) next.idLanguages = [...new Set(item.languages)].join(',');
  if (item.minCondition !== undefined) next.minCondition = item.minCondition;
  // Codes work from the wish price as it is, with the filters as they will be.
  if (item.wishPrice) next.wishPrice = await resolveFor(db, label, item.wishPrice, next, list.idGame, owner);
  await updateWant(db, existing.seq, next);
}

// ---------------------------------------------------------------------------------------------
// Offers

/**
 * One page of the offers a want of the caller's accepts now, cheapest first (the same filter as its
 * `fromPrice` and `FROM`), and how many there are. Another user's list or item is unknown (404).
 */
export async function offersForWant(
  ctx: DomainContext,
  idUser: number,
  idWantslist: number,
  idWant: string,
  page: { offset: number; limit: number },
): Promise<{ item: WantView; total: number; offers: Array<ArticleView & { sellerName: string }> }> {
  const db = ctx.database.db;
  const list = await ownedList(db, idUser, idWantslist);
  const want = await findWantInList(db, idWantslist, idWant);
  if (!want)
    throw notFound(`Wants list ${idWantslist} has no item ${idWant}.`, {
      field: 'idWant',
      reason: 'unknown_item',
    });
  const item = (await detail(db, idUser, list)).items.find((i) => i.want.idWant === want.idWant)!;
  const { total, idArticles } = await matchingOfferPage(
    db,
    wantTarget(want, list.idGame),
    offerFilter(want, idUser),
    page.offset,
    page.limit,
  );
  const loaded = await loadArticleViews(db, idArticles);
  const sellers = await usersByIds(
    db,
    loaded.map((v) => v.idUser),
  );
  const views = new Map(loaded.map((v) => [v.idArticle, v]));
  return {
    item,
    total,
    offers: idArticles.flatMap((id) => {
      const v = views.get(id);
      return v ? [{ ...v, sellerName: sellers.get(v.idUser)?.username ?? '' }] : [];
    }),
  };
}

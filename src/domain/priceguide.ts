import type { Executor } from '../store/db.js';
import {
  importedGuides,
  type OfferFigures,
  offerFigures,
  productsOfArticles,
  productsOfOrders,
  replaceGuides,
  type SaleFigures,
  saleFigures,
  storedGuides,
} from '../store/priceguide.js';
import type { ImportedPriceGuidesTable, PriceGuidesTable } from '../store/schema.js';
import { getSetting, putSetting } from '../store/settings.js';
import type { DomainContext } from './context.js';
import { EVENTS, type EventDispatcher } from './events.js';

/**
 * The price guide (`priceGuides`, cents), computed from the marketplace's own data:
 *  - from current offers: LOW (cheapest non-foil), LOWEX (cheapest non-foil in EX or better, or
 *    sealed), LOWFOIL (cheapest foil), AVG (average non-foil asking price, weighted by copies),
 *    LOWGERMAN (cheapest non-foil of a professional seller in Germany);
 *  - from sales (order lines of orders paid, sent or received, dated by payment): SELL and SELLFOIL
 *    (average sale price of all time), AVG1/AVG7/AVG30 and their foil forms (average over the last
 *    1, 7 and 30 days), TREND and TRENDFOIL (the 7-day average, or the 30-day one when the last
 *    week saw no sale).
 * Where the marketplace has no figure of its own, an imported value stands in. SUGGESTED is never
 * computed. Refreshed for everything by the scheduled job and `cardbazaar priceguide refresh`,
 * and for a product's guide when an order of it changes state or an article of it is listed.
 */

type Values = Omit<PriceGuidesTable, 'idProduct' | 'updatedAt'>;

const average = ([sum, copies]: [number, number]): number | null =>
  copies > 0 ? Math.round(sum / copies) : null;

/** The effective guide of one product, or null when nothing at all is known about it. */
function effectiveGuide(
  offer: OfferFigures | undefined,
  sales: SaleFigures | undefined,
  imported: ImportedPriceGuidesTable | undefined,
): Values | null {
  const own = {
    low: offer?.low ?? null,
    lowEx: offer?.lowEx ?? null,
    lowFoil: offer?.lowFoil ?? null,
    lowGerman: offer?.lowGerman ?? null,
    avg: offer ? average([offer.askSum, offer.askCopies]) : null,
    sell: sales ? average(sales.all) : null,
    sellFoil: sales ? average(sales.foilAll) : null,
    avg1: sales ? average(sales.d1) : null,
    avg7: sales ? average(sales.d7) : null,
    avg30: sales ? average(sales.d30) : null,
    foilAvg1: sales ? average(sales.foilD1) : null,
    foilAvg7: sales ? average(sales.foilD7) : null,
    foilAvg30: sales ? average(sales.foilD30) : null,
  };
  const trend = own.avg7 ?? own.avg30;
  const trendFoil = own.foilAvg7 ?? own.foilAvg30;
  const values: Values = {
    sell: own.sell ?? imported?.sell ?? null,
    low: own.low ?? imported?.low ?? null,
    lowEx: own.lowEx,
    lowFoil: own.lowFoil ?? imported?.lowFoil ?? null,
    avg: own.avg,
    trend: trend ?? imported?.trend ?? null,
    trendFoil: trendFoil ?? imported?.trendFoil ?? null,
    sellFoil: own.sellFoil ?? imported?.sellFoil ?? null,
    lowGerman: own.lowGerman,
    suggested: null,
    avg1: own.avg1 ?? imported?.avg1 ?? null,
    avg7: own.avg7 ?? imported?.avg7 ?? null,
    avg30: own.avg30 ?? imported?.avg30 ?? null,
    foilAvg1: own.foilAvg1 ?? imported?.foilAvg1 ?? null,
    foilAvg7: own.foilAvg7 ?? imported?.foilAvg7 ?? null,
    foilAvg30: own.foilAvg30 ?? imported?.foilAvg30 ?? null,
  };
  return Object.values(values).some((v) => v !== null) ? values : null;
}

const sameValues = (a: PriceGuidesTable, b: Values) =>
  (Object.keys(b) as (keyof Values)[]).every((k) => a[k] === b[k]);

/**
 * Recomputes the guides of `idProducts` (all products when omitted) on `db`; only guides whose
 * values changed are written. Returns how many changed.
 */
export async function recomputeGuides(db: Executor, now: number, idProducts?: number[]): Promise<number> {
  // One after the other: `db` may be a transaction, which is one connection.
  const offers = await offerFigures(db, idProducts);
  const sales = await saleFigures(db, now, idProducts);
  const imported = await importedGuides(db, idProducts);
  const stored = await storedGuides(db, idProducts);
  const offerOf = new Map(offers.map((o) => [o.idProduct, o]));
  const salesOf = new Map(sales.map((s) => [s.idProduct, s]));
  const importedOf = new Map(imported.map((i) => [i.idProduct, i]));
  const storedOf = new Map(stored.map((s) => [s.idProduct, s]));
  const ids = new Set<number>([
    ...offerOf.keys(),
    ...salesOf.keys(),
    ...importedOf.keys(),
    ...storedOf.keys(),
  ]);
  const changedIds: number[] = [];
  const rows: PriceGuidesTable[] = [];
  for (const id of ids) {
    const values = effectiveGuide(offerOf.get(id), salesOf.get(id), importedOf.get(id));
    const old = storedOf.get(id);
    if (values === null ? old === undefined : old !== undefined && sameValues(old, values)) continue;
    changedIds.push(id);
    if (values) rows.push({ idProduct: id, ...values, updatedAt: now });
  }
  await replaceGuides(db, changedIds, rows);
  return changedIds.length;
}

/** The settings key holding when the whole guide was last computed (epoch ms, marketplace time). */
export const PRICE_GUIDE_REFRESHED_SETTING = 'priceGuideRefreshedAt';

/**
 * Recomputes every product's guide; returns how many guides changed. Products are taken a thousand
 * at a time, each batch one short transaction: a marketplace of a million offers is never one long
 * query or one long lock, so requests go on being answered meanwhile.
 */
export async function refreshPriceGuide(ctx: DomainContext): Promise<number> {
  const now = ctx.clock.now();
  const ids = (
    await ctx.database.db.selectFrom('products').select('idProduct').orderBy('idProduct').execute()
  ).map((r) => r.idProduct);
  let changed = 0;
  for (let i = 0; i < ids.length; i += REFRESH_BATCH) {
    const batch = ids.slice(i, i + REFRESH_BATCH);
    changed += await ctx.database.transaction((tx) => recomputeGuides(tx, now, batch));
  }
  await putSetting(ctx.database.db, PRICE_GUIDE_REFRESHED_SETTING, String(now));
  return changed;
}

const REFRESH_BATCH = 1000;

/**
 * Keeps a product's guide current as the marketplace moves: an order changing state (a sale
 * arriving or going away) and an article being listed or made cheaper recompute the guides of the
 * products concerned, in the event's transaction. The scheduled refresh catches everything else
 * (articles sold out or made dearer, the days moving on).
 */
export function registerPriceGuideHandlers(events: EventDispatcher): void {
  // Batch handlers: a bulk stock write lists a hundred articles, often of few products; each
  // product's guide is recomputed once per delivery, not once per article.
  events.onBatch(EVENTS.orderStateChanged, async (ctx, tx, payloads) => {
    const ids = payloads
      .map((p) => (p as { idOrder?: unknown }).idOrder)
      .filter((id): id is number => typeof id === 'number');
    if (ids.length === 0) return;
    await recomputeGuides(tx, ctx.clock.now(), await productsOfOrders(tx, ids));
  });
  events.onBatch(EVENTS.articleListed, async (ctx, tx, payloads) => {
    const ids = payloads
      .map((p) => (p as { idArticle?: unknown }).idArticle)
      .filter((id): id is number => typeof id === 'number');
    if (ids.length === 0) return;
    await recomputeGuides(tx, ctx.clock.now(), await productsOfArticles(tx, ids));
  });
}

/** Refreshes the whole guide if its last refresh is `intervalMinutes` old; says whether it did. */
export async function refreshPriceGuideIfDue(ctx: DomainContext, intervalMinutes: number): Promise<boolean> {
  const last = Number((await getSetting(ctx.database.db, PRICE_GUIDE_REFRESHED_SETTING)) ?? 0);
  if (ctx.clock.now() - last < intervalMinutes * 60_000) return false;
  await refreshPriceGuide(ctx);
  return true;
}

/**
 * The scheduled refresh: checks every minute (or sooner for short intervals) whether the whole
 * guide is older than `intervalMinutes` and recomputes it if so. The time of the last refresh is a
 * setting, so several instances share one schedule. Returns the function that stops it.
 */
export function startPriceGuideJob(
  ctx: DomainContext,
  intervalMinutes: number,
  onError: (err: unknown) => void,
): () => Promise<void> {
  if (intervalMinutes <= 0) return async () => {};
  const interval = intervalMinutes * 60_000;
  let running: Promise<unknown> | undefined;
  const tick = () => {
    running ??= refreshPriceGuideIfDue(ctx, intervalMinutes)
      .catch(onError)
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(tick, Math.min(interval, 60_000));
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}

import { type CONDITIONS, gameRules } from '../domain/catalog.js';
import type { Services } from '../services.js';
import { NEW_ARTICLE_COLUMNS } from '../store/articles.js';
import { insertMany } from '../store/bulk.js';
import { getSetting, putSetting } from '../store/settings.js';
import { DEMO_EPOCH, type ProductPlan } from './catalog-plan.js';
import { Rng, unit } from './prng.js';
import type { Progress } from './progress.js';
import { COMMENTS } from './words.js';

/**
 * The demo offers, in chunks of 10,000 articles. Chunk `c` is drawn from a generator seeded with
 * `c` alone; each chunk is one transaction together with the count of chunks loaded (a setting),
 * so a load that stops half-way resumes where it stopped and a second load adds nothing.
 * Popular products get many offers and most products few (a product's rank is drawn as u², over
 * the products in a fixed shuffled order).
 */
export const ARTICLES_PER_SCALE = 50_000;
export const CHUNK = 10_000;
const CHUNKS_SETTING = 'demo.articleChunks';

export const ARTICLE_COLUMNS = NEW_ARTICLE_COLUMNS;

export interface StockSeller {
  idUser: number;
  weight: number;
}

export function chunkCount(scale: number): number {
  return Math.max(1, Math.round((ARTICLES_PER_SCALE * scale) / CHUNK));
}

export async function seedStock(
  services: Services,
  products: readonly ProductPlan[],
  sellers: readonly StockSeller[],
  scale: number,
  progress: Progress,
): Promise<number> {
  const db = services.database.db;
  const target = chunkCount(scale);
  const done = Number((await getSetting(db, CHUNKS_SETTING)) ?? 0);
  if (done >= target || sellers.length === 0) return 0;
  const byPopularity = [...products].sort(
    (a, b) => unit(`popularity-${a.idProduct}`) - unit(`popularity-${b.idProduct}`),
  );
  const pickSeller = weightedPicker(sellers);
  progress.advance(done);
  let inserted = 0;
  for (let c = done; c < target; c++) {
    const rng = new Rng(`stock-${c}`);
    const rows: unknown[][] = [];
    for (let k = 0; k < CHUNK; k++) {
      const u = rng.next();
      const product = byPopularity[Math.floor(byPopularity.length * u * u)]!;
      rows.push(articleRow(rng, pickSeller(rng.next()), product));
    }
    await services.database.transaction(async (tx) => {
      await insertMany(tx, 'articles', ARTICLE_COLUMNS, rows);
      await putSetting(tx, CHUNKS_SETTING, String(c + 1));
    });
    inserted += rows.length;
    progress.advance(1);
  }
  return inserted;
}

/** One offer of `product` by `idUser`, drawn from `rng`: a row in ARTICLE_COLUMNS order. */
export function articleRow(rng: Rng, idUser: number, product: ProductPlan): unknown[] {
  const single = product.isSingle === 1;
  const flags = single ? gameRules(product.idGame).flags : [];
  const has = (f: string) => flags.includes(f as never);
  const isFoil = has('isFoil') && rng.chance(0.15) ? 1 : 0;
  const isSigned = has('isSigned') && rng.chance(0.01) ? 1 : 0;
  const isAltered = has('isAltered') && rng.chance(0.01) ? 1 : 0;
  const isFirstEd = has('isFirstEd') && rng.chance(product.idGame === 3 ? 0.3 : 0.05) ? 1 : 0;
  const isReverseHolo = has('isReverseHolo') && rng.chance(0.2) ? 1 : 0;
  const condition = single
    ? rng.weighted<(typeof CONDITIONS)[number]>([
        ['MT', 3],
        ['NM', 55],
        ['EX', 20],
        ['GD', 10],
        ['LP', 7],
        ['PL', 4],
        ['PO', 1],
      ])
    : null;
  const idLanguage = rng.weighted([
    [1, 55],
    [3, 15],
    [2, 10],
    [5, 7],
    [4, 6],
    [7, 3],
    [8, 2],
    [10, 2],
  ]);
  const conditionFactor = { MT: 1.15, NM: 1, EX: 0.85, GD: 0.72, LP: 0.6, PL: 0.45, PO: 0.3 }[
    condition ?? 'NM'
  ];
  let price =
    product.basePrice *
    conditionFactor *
    (isFoil ? 2.5 : 1) *
    (isSigned ? 2 : 1) *
    (isAltered ? 1.5 : 1) *
    (isFirstEd ? 1.6 : 1) *
    (idLanguage === 1 ? 1 : 0.9) *
    (0.85 + rng.next() * 0.45);
  price = Math.max(2, Math.round(price));
  const count = single
    ? rng.weighted([
        [1, 60],
        [2, 15],
        [3, 8],
        [4, 12],
        [rng.int(5, 20), 5],
      ])
    : rng.int(1, 10);
  const listed = DEMO_EPOCH - rng.int(0, 120 * 24) * 3_600_000;
  return [
    idUser,
    product.idProduct,
    idLanguage,
    rng.chance(0.1) ? rng.pick(COMMENTS) : '',
    price,
    condition,
    isFoil,
    isSigned,
    isAltered,
    0,
    isFirstEd,
    isReverseHolo,
    count,
    listed,
    listed,
  ];
}

function weightedPicker(sellers: readonly StockSeller[]): (u: number) => number {
  const cumulative: number[] = [];
  let total = 0;
  for (const s of sellers) {
    total += s.weight;
    cumulative.push(total);
  }
  return (u) => {
    const target = u * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! > target) hi = mid;
      else lo = mid + 1;
    }
    return sellers[lo]!.idUser;
  };
}

const USER_STOCK_SETTING = 'demo.userStock';

/** Offers of the demo accounts themselves, listed once (`articles` of the demo users). */
export async function seedDemoUserStock(
  services: Services,
  products: readonly ProductPlan[],
  users: readonly { idUser: number; articles: number }[],
): Promise<number> {
  const db = services.database.db;
  if ((await getSetting(db, USER_STOCK_SETTING)) === '1' || users.length === 0) return 0;
  const byPopularity = [...products].sort(
    (a, b) => unit(`popularity-${a.idProduct}`) - unit(`popularity-${b.idProduct}`),
  );
  const rows: unknown[][] = [];
  for (const { idUser, articles } of users) {
    const rng = new Rng(`demo-user-stock-${articles}-${rows.length}`);
    for (let k = 0; k < articles; k++) {
      const u = rng.next();
      rows.push(articleRow(rng, idUser, byPopularity[Math.floor(byPopularity.length * u * u)]!));
    }
  }
  await services.database.transaction(async (tx) => {
    await insertMany(tx, 'articles', ARTICLE_COLUMNS, rows);
    await putSetting(tx, USER_STOCK_SETTING, '1');
  });
  return rows.length;
}

import { Rng, unit } from './prng.js';
import { ADJECTIVES, HEROES, type L5, NOUNS, OF, PLACES, SEALED } from './words.js';

/**
 * The demo catalog as a plan: games, expansions, products with names in five languages, the
 * metaproducts that group reprints, and a reference price per product. Pure and deterministic:
 * expansion `o` (its products, their ids, which cards it reprints) depends only on `o` and the
 * expansions before it, so a larger scale is the smaller one plus more expansions.
 */

export interface GameSpec {
  idGame: number;
  name: string;
  abbreviation: string;
  /** Expansions of this game per round of 36. */
  perRound: number;
  singles: readonly [number, number];
  singleCategory: readonly [number, string];
  /** Categories of the sealed products, in the order of SEALED. */
  sealedCategories: readonly (readonly [number, string])[];
  rarities: readonly (readonly [string, number])[];
  /** Reference price range per rarity, cents. */
  prices: Record<string, readonly [number, number]>;
  reprintShare: number;
}

export const DEMO_GAMES: readonly GameSpec[] = [
  {
    idGame: 1,
    name: 'Magic the Gathering',
    abbreviation: 'MtG',
    perRound: 14,
    singles: [150, 260],
    singleCategory: [1, 'Magic Single'],
    sealedCategories: [
      [7, 'Magic Booster'],
      [9, 'Magic Display'],
    ],
    rarities: [
      ['Common', 45],
      ['Uncommon', 30],
      ['Rare', 19],
      ['Mythic', 6],
    ],
    prices: { Common: [2, 40], Uncommon: [5, 150], Rare: [30, 2500], Mythic: [150, 9000] },
    reprintShare: 0.25,
  },
  {
    idGame: 3,
    name: 'Yu-Gi-Oh!',
    abbreviation: 'YGO',
    perRound: 8,
    singles: [80, 120],
    singleCategory: [5, 'Yugioh Single'],
    sealedCategories: [
      [17, 'Yugioh Booster'],
      [18, 'Yugioh Display'],
    ],
    rarities: [
      ['Common', 50],
      ['Rare', 20],
      ['Super Rare', 15],
      ['Ultra Rare', 10],
      ['Secret Rare', 5],
    ],
    prices: {
      Common: [2, 30],
      Rare: [5, 80],
      'Super Rare': [20, 400],
      'Ultra Rare': [50, 1500],
      'Secret Rare': [200, 6000],
    },
    reprintShare: 0.3,
  },
  {
    idGame: 6,
    name: 'Pokémon',
    abbreviation: 'PKM',
    perRound: 8,
    singles: [90, 130],
    singleCategory: [51, 'Pokémon Single'],
    sealedCategories: [
      [52, 'Pokémon Booster'],
      [53, 'Pokémon Display'],
    ],
    rarities: [
      ['Common', 45],
      ['Uncommon', 30],
      ['Rare', 15],
      ['Holo Rare', 10],
    ],
    prices: { Common: [2, 25], Uncommon: [5, 60], Rare: [20, 400], 'Holo Rare': [100, 5000] },
    reprintShare: 0.15,
  },
  {
    idGame: 16,
    name: 'Flesh and Blood',
    abbreviation: 'FaB',
    perRound: 2,
    singles: [90, 120],
    singleCategory: [1601, 'Flesh and Blood Single'],
    sealedCategories: [
      [1602, 'Flesh and Blood Booster'],
      [1603, 'Flesh and Blood Display'],
    ],
    rarities: [
      ['Common', 50],
      ['Rare', 30],
      ['Majestic', 15],
      ['Legendary', 5],
    ],
    prices: { Common: [5, 50], Rare: [20, 300], Majestic: [100, 3000], Legendary: [1000, 20000] },
    reprintShare: 0.1,
  },
  {
    idGame: 18,
    name: 'One Piece',
    abbreviation: 'OP',
    perRound: 2,
    singles: [90, 120],
    singleCategory: [1621, 'One Piece Single'],
    sealedCategories: [
      [1622, 'One Piece Booster'],
      [1623, 'One Piece Display'],
    ],
    rarities: [
      ['Common', 45],
      ['Uncommon', 30],
      ['Rare', 15],
      ['Super Rare', 8],
      ['Secret Rare', 2],
    ],
    prices: {
      Common: [3, 30],
      Uncommon: [5, 60],
      Rare: [20, 300],
      'Super Rare': [100, 2000],
      'Secret Rare': [1000, 15000],
    },
    reprintShare: 0.1,
  },
  {
    idGame: 19,
    name: 'Lorcana',
    abbreviation: 'LOR',
    perRound: 2,
    singles: [100, 130],
    singleCategory: [1629, 'Lorcana Single'],
    sealedCategories: [
      [1630, 'Lorcana Booster'],
      [1631, 'Lorcana Display'],
    ],
    rarities: [
      ['Common', 40],
      ['Uncommon', 30],
      ['Rare', 18],
      ['Super Rare', 9],
      ['Legendary', 3],
    ],
    prices: {
      Common: [3, 30],
      Uncommon: [5, 60],
      Rare: [20, 300],
      'Super Rare': [80, 1500],
      Legendary: [500, 8000],
    },
    reprintShare: 0.1,
  },
];

export const EXPANSIONS_PER_ROUND = DEMO_GAMES.reduce((n, g) => n + g.perRound, 0);

/** The id ranges the demo uses (test fixtures allocate far above them). */
export const FIRST_EXPANSION_ID = 1001;
export const FIRST_PRODUCT_ID = 200001;
export const FIRST_METAPRODUCT_ID = 100001;

/** "Now" for the demo's own timestamps (listing dates, the imported guide), fixed for determinism. */
export const DEMO_EPOCH = Date.UTC(2026, 10, 1);

/** Release dates count back from here, ten days per expansion; the newest is still to come. */
const NEWEST_RELEASE = Date.UTC(2027, 2, 5);
const DAY = 86_400_000;

export interface ProductPlan {
  idProduct: number;
  idGame: number;
  idExpansion: number;
  idMetaproduct: number | null;
  idCategory: number;
  categoryName: string;
  names: L5;
  number: string | null;
  rarity: string | null;
  isSingle: number;
  dateAdded: number;
  image: string;
  /** A reference price (cents) the demo offers and the imported guide are drawn around. */
  basePrice: number;
}

export interface ExpansionPlan {
  ordinal: number;
  idExpansion: number;
  idGame: number;
  names: L5;
  abbreviation: string;
  icon: number;
  releaseDate: number;
  isReleased: number;
  products: ProductPlan[];
  /** Metaproducts this expansion introduces (its new cards): id → English name. */
  newMetaproducts: [number, string][];
}

export interface CatalogPlan {
  expansions: ExpansionPlan[];
  products: ProductPlan[];
}

/** How many expansions a scale has: 36 at scale 1, at least 3. */
function expansionCount(scale: number): number {
  return Math.max(3, Math.round(EXPANSIONS_PER_ROUND * scale));
}

/** Which game each slot of a round of expansions belongs to, the games interleaved. */
const ROUND_GAMES: number[] = (() => {
  const assigned = new Map<number, number>();
  const out: number[] = [];
  for (let k = 0; k < EXPANSIONS_PER_ROUND; k++) {
    let best = DEMO_GAMES[0]!;
    let bestLag = -Infinity;
    for (const g of DEMO_GAMES) {
      const lag = (g.perRound * (k + 1)) / EXPANSIONS_PER_ROUND - (assigned.get(g.idGame) ?? 0);
      if (lag > bestLag) {
        best = g;
        bestLag = lag;
      }
    }
    assigned.set(best.idGame, (assigned.get(best.idGame) ?? 0) + 1);
    out.push(best.idGame);
  }
  return out;
})();

export function planCatalog(scale: number): CatalogPlan {
  const count = expansionCount(scale);
  const expansions: ExpansionPlan[] = [];
  const products: ProductPlan[] = [];
  const identities = new Map<number, { idMetaproduct: number; names: L5 }[]>();
  const abbreviations = new Set<string>();
  let nextProduct = FIRST_PRODUCT_ID;
  let nextMetaproduct = FIRST_METAPRODUCT_ID;
  for (let o = 0; o < count; o++) {
    const idGame = ROUND_GAMES[o % EXPANSIONS_PER_ROUND]!;
    const game = DEMO_GAMES.find((g) => g.idGame === idGame)!;
    const rng = new Rng(`expansion-${o}`);
    const names = expansionName(o);
    const abbreviation = uniqueAbbreviation(names[0], abbreviations);
    const idExpansion = FIRST_EXPANSION_ID + o;
    const releaseDate = NEWEST_RELEASE - o * 10 * DAY;
    const plan: ExpansionPlan = {
      ordinal: o,
      idExpansion,
      idGame,
      names,
      abbreviation,
      icon: o + 1,
      releaseDate,
      isReleased: o === 0 ? 0 : 1,
      products: [],
      newMetaproducts: [],
    };
    const pool = identities.get(idGame) ?? [];
    identities.set(idGame, pool);
    const earlier = pool.length;
    const reprinted = new Set<number>();
    const singles = rng.int(game.singles[0], game.singles[1]);
    for (let s = 0; s < singles; s++) {
      let identity: { idMetaproduct: number; names: L5 };
      if (earlier > reprinted.size && rng.chance(game.reprintShare)) {
        let pick = rng.int(0, earlier - 1);
        while (reprinted.has(pick)) pick = (pick + 1) % earlier;
        reprinted.add(pick);
        identity = pool[pick]!;
      } else {
        identity = newIdentity();
      }
      const rarity = rng.weighted(game.rarities);
      const idProduct = nextProduct++;
      const [lo, hi] = game.prices[rarity] ?? [5, 100];
      plan.products.push({
        idProduct,
        idGame,
        idExpansion,
        idMetaproduct: identity.idMetaproduct,
        idCategory: game.singleCategory[0],
        categoryName: game.singleCategory[1],
        names: identity.names,
        number: String(s + 1),
        rarity,
        isSingle: 1,
        dateAdded: releaseDate - 30 * DAY,
        image: `./img/items/${idGame}/${abbreviation}/${idProduct}.jpg`,
        basePrice: Math.round(lo * (hi / lo) ** unit(`price-${idProduct}`)),
      });
    }
    SEALED.forEach((sealed, k) => {
      const [idCategory, categoryName] = game.sealedCategories[k]!;
      const idProduct = nextProduct++;
      const sealedNames = sealed.names.map((template, l) =>
        template.replace('{}', names[l]!),
      ) as unknown as L5;
      plan.products.push({
        idProduct,
        idGame,
        idExpansion,
        idMetaproduct: null,
        idCategory,
        categoryName,
        names: sealedNames,
        number: null,
        rarity: null,
        isSingle: 0,
        dateAdded: releaseDate - 30 * DAY,
        image: `./img/items/${idGame}/${abbreviation}/${idProduct}.jpg`,
        basePrice: (k === 0 ? 400 : 9000) + Math.round(unit(`sealed-${idProduct}`) * (k === 0 ? 200 : 6000)),
      });
    });
    expansions.push(plan);
    products.push(...plan.products);

    function newIdentity() {
      const identity = { idMetaproduct: nextMetaproduct++, names: cardName(idGame, pool.length) };
      pool.push(identity);
      plan.newMetaproducts.push([identity.idMetaproduct, identity.names[0]]);
      return identity;
    }
  }
  return { expansions, products };
}

const ADJ_NOUN = ADJECTIVES.length * NOUNS.length;
const NOUN_PLACE = NOUNS.length * PLACES.length;
const HERO_TITLE = HEROES.length * ADJ_NOUN;

/**
 * The names of a game's k-th card. A quarter are "Adjective Noun", a quarter "Noun of Place", half
 * "Hero, Adjective Noun"; within each pattern a fixed permutation (a step coprime with its size)
 * walks every composable name before any repeats (then a numeral tells them apart).
 */
function cardName(idGame: number, k: number): L5 {
  const pattern = k % 4;
  const j = pattern < 2 ? Math.floor(k / 4) : Math.floor(k / 4) * 2 + (pattern - 2);
  const size = pattern === 0 ? ADJ_NOUN : pattern === 1 ? NOUN_PLACE : HERO_TITLE;
  const idx = (j * 20011 + idGame * 7 + pattern * 313) % size;
  const round = Math.floor(j / size);
  const suffix = round > 0 ? ` ${round + 1}` : '';
  const adjNoun = (i: number, l: number) => {
    const adj = ADJECTIVES[Math.floor(i / NOUNS.length)]![l]!;
    const noun = NOUNS[i % NOUNS.length]![l]!;
    return l === 0 || l === 2 ? `${adj} ${noun}` : `${noun} ${adj}`;
  };
  return [0, 1, 2, 3, 4].map((l) => {
    if (pattern === 0) return adjNoun(idx, l) + suffix;
    if (pattern === 1) {
      return `${NOUNS[Math.floor(idx / PLACES.length)]![l]} ${OF[l]} ${PLACES[idx % PLACES.length]}${suffix}`;
    }
    return `${HEROES[Math.floor(idx / ADJ_NOUN)]}, ${adjNoun(idx % ADJ_NOUN, l)}${suffix}`;
  }) as unknown as L5;
}

const EXPANSION_PREFIXES: readonly L5[] = [
  ['Shadows of', 'Ombres de', 'Schatten über', 'Sombras de', 'Ombre di'],
  ['Return to', 'Retour à', 'Rückkehr nach', 'Regreso a', 'Ritorno a'],
  ['Legends of', 'Légendes de', 'Legenden von', 'Leyendas de', 'Leggende di'],
  ['Rise of', 'Essor de', 'Aufstieg von', 'Auge de', 'Ascesa di'],
  ['Echoes of', 'Échos de', 'Echos von', 'Ecos de', 'Echi di'],
  ['War of', 'Guerre de', 'Krieg um', 'Guerra de', 'Guerra di'],
  ['Dawn of', 'Aube de', 'Morgenröte über', 'Amanecer de', 'Alba di'],
  ['Secrets of', 'Secrets de', 'Geheimnisse von', 'Secretos de', 'Segreti di'],
];

function expansionName(o: number): L5 {
  const space = (EXPANSION_PREFIXES.length + 1) * PLACES.length;
  const idx = (o * 37) % space;
  const round = Math.floor(o / space);
  const suffix = round > 0 ? ` ${round + 1}` : '';
  const place = PLACES[idx % PLACES.length]!;
  const p = Math.floor(idx / PLACES.length);
  if (p === EXPANSION_PREFIXES.length) return [0, 1, 2, 3, 4].map(() => place + suffix) as unknown as L5;
  return EXPANSION_PREFIXES[p]!.map((prefix) => `${prefix} ${place}${suffix}`) as unknown as L5;
}

function uniqueAbbreviation(name: string, taken: Set<string>): string {
  const letters = name
    .replace(/[^A-Za-z ]/g, '')
    .split(' ')
    .filter(Boolean);
  const base = (letters.map((w) => w[0]).join('') + (letters.at(-1) ?? 'X').slice(1)).toUpperCase();
  let code = base.slice(0, 3).padEnd(3, 'X');
  for (let n = 0; taken.has(code); n++) code = `${base.slice(0, 2)}${n}`;
  taken.add(code);
  return code;
}

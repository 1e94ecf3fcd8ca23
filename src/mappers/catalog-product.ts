import { foldWords } from '../domain/search-text.js';
import { CompiledTree, xmlElement } from '../http/xml.js';
import type { ProductDetail, ProductInfo } from '../store/products.js';
import type { Product } from '../store/schema.js';
import { type Static, Type } from '@sinclair/typebox';
import { LocalizationSchema, localName, mapLocalization } from './localization.js';
import { type Link, link, LinksSchema, money, MoneySchema, Nullable } from './values.js';

const productCore = {
  idProduct: Type.Integer(),
  idMetaproduct: Nullable(Type.Integer()),
  countReprints: Type.Integer(),
  enName: Type.String(),
  locName: Type.String({ description: "The name in the viewer's display language." }),
  localization: LocalizationSchema,
  website: Type.String(),
  image: Type.String(),
  gameName: Type.String(),
  categoryName: Type.String(),
  idGame: Type.Integer(),
  number: Nullable(Type.String()),
  rarity: Nullable(Type.String()),
};

export const ProductListedSchema = Type.Object(
  {
    ...productCore,
    expansionName: Nullable(Type.String()),
    expansionIcon: Nullable(Type.Integer()),
    countArticles: Type.Integer(),
    countFoils: Type.Integer(),
    links: Type.Optional(LinksSchema),
  },
  {
    $id: 'ProductListed',
    description: 'Product (reference §2.7) as lists show it (find, singles, metaproducts, wants).',
  },
);

const PRICE_GUIDE_KEYS = ['SELL', 'LOW', 'LOWEX', 'LOWFOIL', 'AVG', 'TREND', 'TRENDFOIL'] as const;
export const PriceGuideSchema = Type.Partial(
  Type.Object(
    Object.fromEntries(PRICE_GUIDE_KEYS.map((k) => [k, MoneySchema])) as Record<
      (typeof PRICE_GUIDE_KEYS)[number],
      typeof MoneySchema
    >,
  ),
  { additionalProperties: false, description: 'Only the values known, in this order.' },
);

export const ProductSchema = Type.Object(
  {
    ...productCore,
    expansion: Nullable(
      Type.Object({ idExpansion: Type.Integer(), enName: Type.String(), expansionIcon: Type.Integer() }),
    ),
    priceGuide: PriceGuideSchema,
    reprint: Type.Array(
      Type.Object({
        idProduct: Type.Integer(),
        expansion: Nullable(Type.String()),
        expIcon: Nullable(Type.Integer()),
      }),
    ),
    countArticles: Type.Integer(),
    countFoils: Type.Integer(),
    links: LinksSchema,
  },
  { $id: 'Product', description: 'Product (reference §2.7) as `GET /products/:idProduct` shows it.' },
);
export type ApiProduct = Static<typeof ProductSchema>;

/**
 * The Product entity as the catalog endpoints return it (reference §2.7; the short product inside
 * an Article is `product.ts`). Two forms, as the real API answers them:
 *  - `list` (find, expansion singles, metaproducts, wants): `expansionName`, `expansionIcon`, the
 *    offer counts, and a `product` link (not inside a want, where recorded responses have none);
 *  - `detail` (GET /products/:id): `expansion {…}`, `priceGuide {…}`, `reprint […]`, the offer
 *    counts, and `self` and `articles` links.
 * `locName` is the name in the viewer's display language.
 */
export function mapProductListed(
  info: ProductInfo,
  idLanguage: number,
  { withLinks = true }: { withLinks?: boolean } = {},
): ProductListed {
  return listedTree(info, idLanguage, catalogParts(info), withLinks);
}

export type ProductListed = Static<typeof ProductListedSchema>;

/**
 * A list of products as an answer carries it (find, expansion singles, metaproducts): the trees of
 * `mapProductListed`, each written to XML by a writer that keeps, per product and catalog version,
 * the text of everything but its offer counts (a page of 100 found products wrote some 4,200
 * elements, and mapped 500 localizations and 100 website paths, for text that changes only with
 * the catalog). Byte for byte what the generic writer gives for the same trees
 * (`catalog-product.test.ts` compares them); JSON writes the trees.
 */
export function mapProductsListed(infos: readonly ProductInfo[], idLanguage: number): ProductListed[] {
  const out = new Array<ProductListed>(infos.length);
  for (let i = 0; i < infos.length; i++) {
    const info = infos[i]!;
    const parts = catalogParts(info);
    const tree = listedTree(info, idLanguage, parts, true);
    const prefix = listedPrefix(parts, tree, idLanguage);
    const links = (parts.linksXml ??= xmlElement('links', parts.links));
    // Typed as the tree it stands for: both formats render it as that tree.
    out[i] = new CompiledTree(
      tree,
      (t: ProductListed) => prefix.toString('utf8') + countsXml(t) + links,
      (t: ProductListed) => [prefix, countsXml(t) + links],
    ) as unknown as ProductListed;
  }
  return out;
}

function countsXml(t: ProductListed): string {
  return typeof t.countArticles === 'number' && typeof t.countFoils === 'number'
    ? '<countArticles>' + t.countArticles + '</countArticles><countFoils>' + t.countFoils + '</countFoils>'
    : xmlElement('countArticles', t.countArticles) + xmlElement('countFoils', t.countFoils);
}

function listedTree(
  info: ProductInfo,
  idLanguage: number,
  parts: CatalogParts,
  withLinks: boolean,
): ProductListed {
  const p = info.product;
  return {
    idProduct: p.idProduct,
    idMetaproduct: p.idMetaproduct,
    countReprints: info.countReprints,
    enName: p.enName,
    locName: localName(info.names, p.enName, idLanguage),
    localization: parts.localization,
    website: parts.website,
    image: p.image,
    gameName: info.gameName,
    categoryName: p.categoryName,
    idGame: p.idGame,
    number: p.number,
    rarity: p.rarity,
    expansionName: info.expansion?.enName ?? null,
    expansionIcon: info.expansion?.icon ?? null,
    countArticles: info.countArticles,
    countFoils: info.countFoils,
    links: withLinks ? parts.links : undefined,
  };
}

/**
 * What a product shows that only the catalog decides, mapped once per catalog info: the store
 * hands out the same `product` row object, frozen, for as long as the catalog version it was read
 * at stands (`loadProductInfos`), and reads new objects after a write moved it; a product read
 * inside a transaction is a new object each time. The parts remember the info's other catalog
 * fields they were made from and are made again if any differs.
 */
interface CatalogParts {
  names: ProductInfo['names'];
  expansion: ProductInfo['expansion'];
  gameName: string;
  countReprints: number;
  localization: ProductListed['localization'];
  website: string;
  links: Link[];
  /**
   * The listed form's XML up to its offer counts, as UTF-8 per idLanguage, made at its first XML
   * answer in that language: kept as bytes, outside the heap the garbage collector walks.
   */
  xml: (Buffer | undefined)[] | undefined;
  /** Its XML after the offer counts. */
  linksXml: string | undefined;
}

const CATALOG_PARTS = new WeakMap<Product, CatalogParts>();

function catalogParts(info: ProductInfo): CatalogParts {
  const kept = CATALOG_PARTS.get(info.product);
  if (
    kept !== undefined &&
    kept.names === info.names &&
    kept.expansion === info.expansion &&
    kept.gameName === info.gameName &&
    kept.countReprints === info.countReprints
  )
    return kept;
  const p = info.product;
  const parts: CatalogParts = {
    names: info.names,
    expansion: info.expansion,
    gameName: info.gameName,
    countReprints: info.countReprints,
    // Shared by every answer that shows the product: frozen, so no answer can change another's.
    localization: Object.freeze(
      mapLocalization(info.names, p.enName).map((l) => Object.freeze(l)),
    ) as ProductListed['localization'],
    website: productWebsite(info),
    links: Object.freeze([Object.freeze(link('product', `/products/${p.idProduct}`))]) as Link[],
    xml: undefined,
    linksXml: undefined,
  };
  CATALOG_PARTS.set(p, parts);
  return parts;
}

/** The bytes of a listed product's XML up to its offer counts, in the viewer's language. */
function listedPrefix(parts: CatalogParts, tree: ProductListed, idLanguage: number): Buffer {
  const kept = (parts.xml ??= []);
  let prefix = kept[idLanguage];
  if (prefix === undefined) {
    let text = '';
    for (const key in tree) {
      if (key === 'countArticles') break;
      text += xmlElement(key, tree[key as keyof ProductListed]);
    }
    prefix = Buffer.from(text, 'utf8');
    if (Number.isInteger(idLanguage) && idLanguage >= 0 && idLanguage < 64) kept[idLanguage] = prefix;
  }
  return prefix;
}

export function mapProductDetail(detail: ProductDetail, idLanguage: number): ApiProduct {
  const id = detail.product.idProduct;
  return {
    ...core(detail, idLanguage),
    expansion: detail.expansion
      ? {
          idExpansion: detail.expansion.idExpansion,
          enName: detail.expansion.enName,
          expansionIcon: detail.expansion.icon,
        }
      : null,
    priceGuide: mapProductPriceGuide(detail),
    reprint: detail.reprints.map((r) => ({
      idProduct: r.idProduct,
      expansion: r.expansionName,
      expIcon: r.expansionIcon,
    })),
    countArticles: detail.countArticles,
    countFoils: detail.countFoils,
    links: [link('self', `/products/${id}`), link('articles', `/articles/${id}`)],
  };
}

function core(info: ProductInfo, idLanguage: number) {
  const p = info.product;
  const parts = catalogParts(info);
  return {
    idProduct: p.idProduct,
    idMetaproduct: p.idMetaproduct,
    countReprints: info.countReprints,
    enName: p.enName,
    locName: localName(info.names, p.enName, idLanguage),
    localization: parts.localization,
    website: parts.website,
    image: p.image,
    gameName: info.gameName,
    categoryName: p.categoryName,
    idGame: p.idGame,
    number: p.number,
    rarity: p.rarity,
  };
}

/**
 * The price guide of a product page: the keys the reference lists, each only where there is a
 * value (the real API leaves out what it does not know).
 */
function mapProductPriceGuide(detail: ProductDetail): Static<typeof PriceGuideSchema> {
  const g = detail.priceGuide;
  const out: Static<typeof PriceGuideSchema> = {};
  if (!g) return out;
  const keys: [(typeof PRICE_GUIDE_KEYS)[number], number | null][] = [
    ['SELL', g.sell],
    ['LOW', g.low],
    ['LOWEX', g.lowEx],
    ['LOWFOIL', g.lowFoil],
    ['AVG', g.avg],
    ['TREND', g.trend],
    ['TRENDFOIL', g.trendFoil],
  ];
  for (const [key, cents] of keys) if (cents !== null) out[key] = money(cents);
  return out;
}

/** The website's URL names games by a short name of their own. */
const GAME_SITE_NAMES: Record<number, string> = {
  1: 'Magic',
  3: 'YuGiOh',
  6: 'Pokemon',
  16: 'FleshAndBlood',
  18: 'OnePiece',
  19: 'Lorcana',
};

/** The product's page, relative to the website (`/en/Magic/Products/Singles/Born+of+the+Gods/…`). */
export function productWebsite(info: ProductInfo): string {
  const p = info.product;
  const game = GAME_SITE_NAMES[p.idGame] ?? words(info.gameName).join('');
  const shelf = p.isSingle ? 'Singles' : words(p.categoryName).join('-');
  const expansion = info.expansion ? `/${words(info.expansion.enName).join('+')}` : '';
  return `/en/${game}/Products/${shelf}${expansion}/${words(p.enName).join('-')}`;
}

// Most names are plain ASCII: their words need no Unicode normalization (the costly part).
const PLAIN = /^[\x20-\x7e]*$/;

/** Words of a name as they appear in the website's URLs: accents folded, case kept. */
function words(text: string): string[] {
  if (PLAIN.test(text)) {
    // What the general path gives for ASCII: NFKD changes nothing, and letters and digits are these.
    return text
      .replace(/['`]/g, '')
      .split(/[^A-Za-z0-9]+/)
      .filter((w) => w !== '');
  }
  const folded = foldWords(text);
  const original = text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/['’`´]/g, '')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== '');
  return original.length === folded.length ? original : folded;
}

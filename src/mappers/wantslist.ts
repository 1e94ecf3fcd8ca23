import { gameRules, languageName } from '../domain/catalog.js';
import { WANT_FLAGS, type WantslistDetail, type WantView, wantLanguages } from '../domain/wants.js';
import type { WantMetaproductFacts, WantProductFacts, WantslistRow } from '../store/wants.js';
import { link, money } from './values.js';

/**
 * Wantslist and Want (reference §2.17), shaped like the recorded responses of the real API: a list
 * carries its game, name and item count, and its items only when it is requested alone.
 */
export function mapWantslist(list: WantslistRow, items?: WantView[]) {
  return {
    idWantslist: list.idWantslist,
    game: { idGame: list.game.idGame, name: list.game.name, abbreviation: list.game.abbreviation },
    name: list.name,
    itemCount: list.itemCount,
    item: items?.map(mapWant),
    links: items ? undefined : [link('self', `/wantslist/${list.idWantslist}`)],
  };
}

/** A single list as GET, PUT answer it: the list with its items, and what can be done with it. */
export function mapWantslistDetail({ list, items }: WantslistDetail) {
  const href = `/wantslist/${list.idWantslist}`;
  return {
    wantslist: mapWantslist(list, items),
    links: [link('self', href), link('manage_items', href, 'PUT'), link('delete_list', href, 'DELETE')],
  };
}

/**
 * A want: `wishPrice` 0 means none was set; `fromPrice` is the lowest offer matching it now (null
 * when there is none). A flag is true, false or null (either), and appears only where the game's
 * cards have it.
 */
export function mapWant(view: WantView) {
  const { want } = view;
  const out: Record<string, unknown> = {
    idWant: want.idWant,
    count: want.count,
    wishPrice: money(want.wishPrice),
    fromPrice: money(view.fromPrice),
    mailAlert: want.mailAlert === 1,
    type: want.idProduct !== null ? 'product' : 'metaproduct',
  };
  if (want.idProduct !== null) {
    out.idProduct = want.idProduct;
    out.product = view.product ? mapWantProduct(view.product) : null;
  } else {
    out.idMetaproduct = want.idMetaproduct;
    out.metaproduct = view.metaproduct ? mapWantMetaproduct(view.metaproduct) : null;
  }
  out.idLanguage = wantLanguages(want);
  out.minCondition = want.minCondition;
  const gameFlags = gameRules(view.idGame).flags as readonly string[];
  for (const flag of WANT_FLAGS) {
    if (gameFlags.includes(flag)) out[flag] = want[flag] === null ? null : want[flag] === 1;
  }
  return out;
}

const localization = (names: Array<{ name: string; idLanguage: number }>) =>
  names.map((n) => ({ name: n.name, idLanguage: n.idLanguage, languageName: languageName(n.idLanguage) }));

const slug = (s: string) =>
  s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/**
 * The product inside a want, in the form the real API sends there (the find form of Product,
 * reference §2.7: expansion name and icon, article counts, no price guide).
 * TODO(merge): switch to the catalog's Product mapper once it lands, so the field list lives once.
 */
function mapWantProduct(p: WantProductFacts) {
  const game = p.idGame === 1 ? 'Magic' : slug(p.gameName);
  return {
    idProduct: p.idProduct,
    idMetaproduct: p.idMetaproduct,
    countReprints: p.countReprints,
    enName: p.enName,
    locName: p.locName,
    localization: localization(p.localization),
    website: `/en/${game}/Products/Singles/${slug(p.expansionName ?? '')}/${slug(p.enName)}`,
    image: p.image,
    gameName: p.gameName,
    categoryName: p.categoryName,
    idGame: p.idGame,
    number: p.number,
    rarity: p.rarity,
    expansionName: p.expansionName,
    expansionIcon: p.expansionIcon,
    countArticles: p.countArticles,
    countFoils: p.countFoils,
  };
}

/** The Metaproduct entity (reference §2.9). */
function mapWantMetaproduct(m: WantMetaproductFacts) {
  return {
    idMetaproduct: m.idMetaproduct,
    enName: m.enName,
    locName: m.locName,
    localization: localization(m.localization),
    image: m.image,
    links: [link('self', `/metaproducts/${m.idMetaproduct}`)],
  };
}

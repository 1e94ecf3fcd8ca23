import { gameRules } from '../domain/catalog.js';
import {
  type FailedWantslist,
  WANT_FLAGS,
  type WantslistDetail,
  type WantView,
  wantLanguages,
} from '../domain/wants.js';
import type { WantslistRow } from '../store/wants.js';
import { mapProductListed } from './catalog-product.js';
import { mapGame } from './game.js';
import { mapMetaproduct } from './metaproduct.js';
import { link, money, presentList } from './values.js';

/**
 * Wantslist and Want (reference §2.17), shaped like the recorded responses of the real API: a list
 * carries its game, name and item count, and its items only when it is requested alone.
 */
export function mapWantslist(list: WantslistRow, items?: WantView[]) {
  return {
    idWantslist: list.idWantslist,
    game: mapGame(list.game, { withLinks: false }),
    name: list.name,
    itemCount: list.itemCount,
    item: items && presentList(items.map(mapWant)),
    links: items ? undefined : [link('self', `/wantslist/${list.idWantslist}`)],
  };
}

/** A list `POST /wantslist` could not create: the reason, and the name and game as sent. */
export const mapFailedWantslist = (f: FailedWantslist) => ({
  error: f.error,
  name: f.name,
  // An id is a number, as everywhere; something that is not an id is echoed as sent.
  idGame: f.idGame !== null && /^\d{1,9}$/.test(f.idGame.trim()) ? Number(f.idGame.trim()) : f.idGame,
});

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
 * cards have it. The product or metaproduct is the catalog's entity, in the list form the real API
 * sends inside a want (reference §2.7, §2.9), named in the owner's display language.
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
    out.product = view.product ? mapProductListed(view.product, view.idLanguage, { withLinks: false }) : null;
  } else {
    out.idMetaproduct = want.idMetaproduct;
    out.metaproduct = view.metaproduct ? mapMetaproduct(view.metaproduct, view.idLanguage) : null;
  }
  // Empty means any language; an empty element in XML, as `editItem` takes it.
  out.idLanguage = presentList(wantLanguages(want));
  out.minCondition = want.minCondition;
  const gameFlags = gameRules(view.idGame).flags as readonly string[];
  for (const flag of WANT_FLAGS) {
    if (gameFlags.includes(flag)) out[flag] = want[flag] === null ? null : want[flag] === 1;
  }
  return out;
}

import { gameRules } from '../domain/catalog.js';
import {
  type FailedWantslist,
  type WantFlag,
  type WantslistDetail,
  type WantView,
  wantLanguages,
} from '../domain/wants.js';
import type { WantslistRow } from '../store/wants.js';
import { type Static, Type } from '@sinclair/typebox';
import { mapProductListed, ProductListedSchema } from './catalog-product.js';
import { GameSchema, mapGame } from './game.js';
import { HexIdSchema } from './message.js';
import { mapMetaproduct, MetaproductSchema } from './metaproduct.js';
import { BoolSchema, link, LinksSchema, money, MoneySchema, Nullable, presentList } from './values.js';

const wantFlag = Type.Optional(
  Nullable(Type.Boolean({ description: 'null: either; only for games whose cards have the flag.' })),
);

export const WantSchema = Type.Object(
  {
    idWant: HexIdSchema,
    count: Type.Integer(),
    wishPrice: MoneySchema,
    fromPrice: Nullable(MoneySchema),
    mailAlert: BoolSchema,
    type: Type.Union([Type.Literal('product'), Type.Literal('metaproduct')]),
    idProduct: Type.Optional(Type.Integer()),
    product: Type.Optional(Nullable(ProductListedSchema)),
    idMetaproduct: Type.Optional(Type.Integer()),
    metaproduct: Type.Optional(Nullable(MetaproductSchema)),
    idLanguage: Type.Array(Type.Integer(), {
      description: 'Empty: any language (one empty element in XML).',
    }),
    minCondition: Type.String(),
    isFoil: wantFlag,
    isSigned: wantFlag,
    isAltered: wantFlag,
    isFirstEd: wantFlag,
  },
  { $id: 'Want', description: 'Want (reference §2.17): one item of a wants list.' },
);

export const WantslistSchema = Type.Object(
  {
    idWantslist: Type.Integer(),
    game: GameSchema,
    name: Type.String(),
    itemCount: Type.Integer(),
    item: Type.Optional(Type.Array(WantSchema, { description: 'Only when the list is requested alone.' })),
    links: Type.Optional(LinksSchema),
  },
  { $id: 'Wantslist', description: 'Wantslist (reference §2.17).' },
);
export type ApiWantslist = Static<typeof WantslistSchema>;

/**
 * Wantslist and Want (reference §2.17), shaped like the recorded responses of the real API: a list
 * carries its game, name and item count, and its items only when it is requested alone.
 */
export function mapWantslist(list: WantslistRow, items?: WantView[]): ApiWantslist {
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
export function mapWant(view: WantView): Static<typeof WantSchema> {
  const { want } = view;
  const isProduct = want.idProduct !== null;
  const gameFlags = gameRules(view.idGame).flags as readonly string[];
  const flag = (f: WantFlag) =>
    gameFlags.includes(f) ? (want[f] === null ? null : want[f] === 1) : undefined;
  // Undefined keys are left out of both formats: a want carries its product or its metaproduct.
  return {
    idWant: want.idWant,
    count: want.count,
    wishPrice: money(want.wishPrice),
    fromPrice: money(view.fromPrice),
    mailAlert: want.mailAlert === 1,
    type: isProduct ? 'product' : 'metaproduct',
    idProduct: isProduct ? want.idProduct! : undefined,
    product: isProduct
      ? view.product
        ? mapProductListed(view.product, view.idLanguage, { withLinks: false })
        : null
      : undefined,
    idMetaproduct: isProduct ? undefined : want.idMetaproduct!,
    metaproduct: isProduct
      ? undefined
      : view.metaproduct
        ? mapMetaproduct(view.metaproduct, view.idLanguage)
        : null,
    // Empty means any language; an empty element in XML, as `editItem` takes it.
    idLanguage: presentList(wantLanguages(want)),
    minCondition: want.minCondition,
    // In WANT_FLAGS' order.
    isFoil: flag('isFoil'),
    isSigned: flag('isSigned'),
    isAltered: flag('isAltered'),
    isFirstEd: flag('isFirstEd'),
  };
}

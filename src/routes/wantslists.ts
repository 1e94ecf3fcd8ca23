import { isCondition, isLanguage } from '../domain/catalog.js';
import { isHexId } from '../domain/hex-id.js';
import {
  type AddItemInput,
  createWantslists,
  deleteWantslist,
  type EditItemInput,
  type FlagChoice,
  getWantslist,
  listWantslists,
  MAX_NAME_LENGTH,
  MAX_WANT_COUNT,
  updateWantslist,
  WANT_FLAGS,
  type WantFlag,
  type WantslistChange,
} from '../domain/wants.js';
import { parseWishPrice } from '../domain/wish-price.js';
import { ApiError, badRequest } from '../errors.js';
import { requireBody } from '../http/body.js';
import {
  boolean,
  idParam,
  integer,
  objects,
  parseInteger,
  requireInteger,
  requireText,
  strings,
  text,
} from '../http/fields.js';
import { ok, type Router, USER_KINDS } from '../http/routing.js';
import type { XmlObject } from '../http/xml.js';
import { mapFailedWantslist, mapWantslist, mapWantslistDetail } from '../mappers/wantslist.js';
import type { Services } from '../services.js';
import { type TProperties, Type } from '@sinclair/typebox';
import { Answer, IdParam, RequestBody, RequiredText } from '../http/route-schema.js';
import { CONDITIONS, LANGUAGE_ID_RANGE } from '../domain/catalog.js';
import { PRICE_PATTERN } from '../domain/money.js';

/** `idWant` as `wantId` reads it: 24 hexadecimal digits, any case, spaces around. */
const WANT_ID_PATTERN = '^\\s*[0-9a-fA-F]{24}\\s*$';
/** What `parseWishPrice` reads: a price, +/− an amount, a percentage, FROM or SELL (any case). */
const WISH_PRICE_PATTERN = `^\\s*(?:[Ff][Rr][Oo][Mm]|[Ss][Ee][Ll][Ll]|\\d{1,4}(?:[.,]\\d{1,2})?\\s*%|[+-]?${PRICE_PATTERN.replace(/^\^\\s\*|\\s\*\$$/g, '')})\\s*$`;

/** A wants-list item (`parseAddItem`, `parseEditItem`): its id element and the fields it may set. */
const wantItem = (id: TProperties) =>
  Type.Object({
    ...id,
    count: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_WANT_COUNT, description: 'Default 1.' })),
    wishPrice: Type.Optional(
      Type.String({
        pattern: WISH_PRICE_PATTERN,
        description: '`1.50`, `+0.02`, `-0.37`, `90%`, `FROM` or `SELL`.',
      }),
    ),
    mailAlert: Type.Optional(Type.Boolean()),
    idLanguage: Type.Optional(
      Type.Array(Type.Integer(LANGUAGE_ID_RANGE), {
        description: 'Repeatable; one empty element: any language.',
      }),
    ),
    minCondition: Type.Optional(Type.String({ enum: [...CONDITIONS], description: 'Any case.' })),
    ...Object.fromEntries(
      WANT_FLAGS.map((flag) => [
        flag,
        Type.Optional(
          Type.String({ enum: ['true', 'false', 'null', 'any'], description: '`null` or `any`: either.' }),
        ),
      ]),
    ),
  });
import { WantslistSchema } from '../mappers/wantslist.js';
import { LinksSchema } from '../mappers/values.js';

const DETAIL = Answer({ wantslist: WantslistSchema, links: LinksSchema });
import { presentList } from '../mappers/values.js';

/** Wants lists (reference §1.7, §2.17; spec §4.4 for the wish price codes). */
export function wantslistRoutes(r: Router, services: Services): void {
  const options = { kinds: USER_KINDS };

  r.get(
    '/wantslist',
    {
      ...options,
      schema: {
        summary: 'The wants lists',
        responses: { 200: Answer({ wantslist: Type.Array(WantslistSchema) }), 204: null },
      },
    },
    async (req) => {
      const lists = await listWantslists(services, req.auth.idUser!);
      if (lists.length === 0) return { status: 204, body: null };
      return ok({ wantslist: lists.map((l) => mapWantslist(l)) });
    },
  );

  r.post(
    '/wantslist',
    {
      ...options,
      schema: {
        summary: 'Create wants lists',
        body: RequestBody({
          wantslist: Type.Array(
            Type.Object({
              idGame: IdParam,
              name: RequiredText(MAX_NAME_LENGTH, 'Unique among your lists (any case).'),
            }),
            { minItems: 1, description: 'A list that cannot be made fails on its own (in `failed`).' },
          ),
        }),
        responses: {
          200: Answer({
            wantslist: Type.Array(WantslistSchema),
            failed: Type.Optional(
              Type.Array(
                Type.Object({
                  error: Type.String(),
                  name: Type.Union([Type.String(), Type.Null()]),
                  idGame: Type.Union([Type.Integer(), Type.String(), Type.Null()]),
                }),
              ),
            ),
          }),
        },
      },
    },
    async (req) => {
      const body = requireBody(req.body, '<wantslist><idGame>1</idGame><name>…</name></wantslist>');
      const inputs = objects(body, 'wantslist').map((w) => ({
        idGame: optionalText(w, 'idGame'),
        name: optionalText(w, 'name'),
      }));
      const { created, failed } = await createWantslists(services, req.auth.idUser!, inputs);
      return ok({
        wantslist: presentList(created.map((l) => mapWantslist(l))),
        failed: failed.length > 0 ? failed.map(mapFailedWantslist) : undefined,
      });
    },
  );

  r.get(
    '/wantslist/:idWantslist',
    {
      ...options,
      schema: {
        summary: 'A wants list with its items',
        params: { idWantslist: IdParam },
        responses: { 200: DETAIL },
      },
    },
    async (req) => {
      const detail = await getWantslist(services, req.auth.idUser!, idParam(req.params, 'idWantslist'));
      return ok(mapWantslistDetail(detail));
    },
  );

  r.put(
    '/wantslist/:idWantslist',
    {
      ...options,
      schema: {
        summary: 'Rename a list, or add, change or delete its items',
        params: { idWantslist: IdParam },
        body: RequestBody(
          {
            action: Type.String({ enum: ['editWantslist', 'addItem', 'editItem', 'deleteItem'] }),
            name: Type.Optional(RequiredText(MAX_NAME_LENGTH, 'Required with `editWantslist`.')),
            product: Type.Optional(Type.Array(wantItem({ idProduct: IdParam }))),
            metaproduct: Type.Optional(Type.Array(wantItem({ idMetaproduct: IdParam }))),
            want: Type.Optional(
              Type.Array(
                wantItem({ idWant: Type.String({ pattern: WANT_ID_PATTERN, description: 'The item id.' }) }),
              ),
            ),
          },
          'editWantslist: name; addItem: product/metaproduct items; editItem, deleteItem: want items with idWant (deleteItem reads nothing else). Any item that breaks its schema refuses the whole request (400).',
        ),
        responses: { 200: DETAIL },
      },
    },
    async (req) => {
      const idWantslist = idParam(req.params, 'idWantslist');
      const body = requireBody(req.body, '<action>editWantslist|addItem|editItem|deleteItem</action>…');
      const detail = await updateWantslist(
        services,
        req.auth.idUser!,
        idWantslist,
        parseWantslistChange(body),
      );
      return ok(mapWantslistDetail(detail));
    },
  );

  r.delete(
    '/wantslist/:idWantslist',
    {
      ...options,
      schema: {
        summary: 'Delete a wants list; answers the lists left',
        params: { idWantslist: IdParam },
        responses: { 200: Answer({ wantslist: Type.Array(WantslistSchema) }) },
      },
    },
    async (req) => {
      const left = await deleteWantslist(services, req.auth.idUser!, idParam(req.params, 'idWantslist'));
      return ok({ wantslist: presentList(left.map((l) => mapWantslist(l))) });
    },
  );
}

/** Text of an element that may be missing; a nested element where text belongs is still a 400. */
function optionalText(obj: XmlObject, name: string): string | undefined {
  try {
    return text(obj, name);
  } catch {
    return undefined;
  }
}

/** The body of `PUT /wantslist/:id` (the website builds the same body from its forms). */
export function parseWantslistChange(body: XmlObject): WantslistChange {
  const action = requireText(body, 'action').trim();
  switch (action) {
    case 'editWantslist':
      return { action, name: requireText(body, 'name') };
    case 'addItem': {
      const items: AddItemInput[] = [];
      objects(body, 'product').forEach((item, i) => {
        items.push(
          labelled(`<product> ${i + 1}`, item, 'idProduct', (label) => parseAddItem(label, item, 'product')),
        );
      });
      objects(body, 'metaproduct').forEach((item, i) => {
        items.push(
          labelled(`<metaproduct> ${i + 1}`, item, 'idMetaproduct', (label) =>
            parseAddItem(label, item, 'metaproduct'),
          ),
        );
      });
      return { action, items };
    }
    case 'editItem':
      return {
        action,
        items: objects(body, 'want').map((item, i) =>
          labelled(`<want> ${i + 1}`, item, 'idWant', (label) => parseEditItem(label, item)),
        ),
      };
    case 'deleteItem':
      return {
        action,
        items: objects(body, 'want').map((item, i) =>
          labelled(`<want> ${i + 1}`, item, 'idWant', (label) => ({ label, idWant: wantId(item) })),
        ),
      };
    default:
      throw badRequest(`Unknown action "${action}": use editWantslist, addItem, editItem or deleteItem.`, {
        field: 'action',
      });
  }
}

/** Runs an item's parser, prefixing any error with which item it is, e.g. `<product> 2 (idProduct 7)`. */
function labelled<T>(position: string, item: XmlObject, idField: string, parse: (label: string) => T): T {
  const id = optionalText(item, idField)?.trim();
  const label = id ? `${position} (${idField} ${id})` : position;
  try {
    return parse(label);
  } catch (err) {
    if (err instanceof ApiError && !err.message.startsWith(label)) {
      throw badRequest(`${label}: ${err.message}`, {
        field: err.field,
        reason: err.reason,
        params: err.params,
      });
    }
    throw err;
  }
}

function wantId(item: XmlObject): string {
  const id = requireText(item, 'idWant').trim().toLowerCase();
  if (!isHexId(id))
    throw badRequest(`"idWant" must be an item id of 24 hexadecimal digits (got "${id}").`, {
      field: 'idWant',
    });
  return id;
}

function parseAddItem(label: string, item: XmlObject, type: 'product' | 'metaproduct'): AddItemInput {
  const target =
    type === 'product'
      ? { type, idProduct: requireInteger(item, 'idProduct', { min: 1 }) }
      : { type, idMetaproduct: requireInteger(item, 'idMetaproduct', { min: 1 }) };
  const wishPrice = text(item, 'wishPrice');
  return {
    label,
    target,
    count: integer(item, 'count', { min: 1, max: MAX_WANT_COUNT }) ?? 1,
    wishPrice: wishPrice === undefined || wishPrice.trim() === '' ? undefined : parseWishPrice(wishPrice),
    mailAlert: boolean(item, 'mailAlert') ?? false,
    languages: languages(item) ?? [],
    minCondition: minCondition(item),
    flags: flags(item),
  };
}

function parseEditItem(label: string, item: XmlObject): EditItemInput {
  const wishPrice = text(item, 'wishPrice');
  return {
    label,
    idWant: wantId(item),
    count: integer(item, 'count', { min: 1, max: MAX_WANT_COUNT }),
    wishPrice: wishPrice === undefined || wishPrice.trim() === '' ? undefined : parseWishPrice(wishPrice),
    mailAlert: boolean(item, 'mailAlert'),
    languages: languages(item),
    minCondition: minCondition(item),
    flags: flags(item),
  };
}

/** Repeated `idLanguage`; absent: unchanged (any, for a new item); one empty element: any language. */
function languages(item: XmlObject): number[] | undefined {
  const values = strings(item, 'idLanguage').map((s) => s.trim());
  if (values.length === 0) return undefined;
  if (values.length === 1 && values[0] === '') return [];
  return values.map((v) => {
    const id = parseInteger(v, 'idLanguage', { min: 1 });
    if (!isLanguage(id))
      throw badRequest(`There is no language ${id}.`, { field: 'idLanguage', reason: 'unknown_language' });
    return id;
  });
}

function minCondition(item: XmlObject): string | undefined {
  const v = text(item, 'minCondition')?.trim().toUpperCase();
  if (v === undefined || v === '') return undefined;
  if (!isCondition(v)) {
    throw badRequest(`minCondition must be one of MT, NM, EX, GD, LP, PL, PO (got "${v}").`, {
      field: 'minCondition',
      reason: 'unknown_condition',
    });
  }
  return v;
}

/** `true`, `false`, or `null` (either); an absent or empty element leaves the flag as it is. */
function flags(item: XmlObject): Partial<Record<WantFlag, FlagChoice>> {
  const out: Partial<Record<WantFlag, FlagChoice>> = {};
  for (const flag of WANT_FLAGS) {
    const v = text(item, flag)?.trim();
    if (v === undefined || v === '') continue;
    if (v === 'null' || v === 'any') out[flag] = null;
    else out[flag] = boolean(item, flag)!;
  }
  return out;
}

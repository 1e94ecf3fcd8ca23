import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CONDITIONS, gameRules, LANGUAGES } from '../domain/catalog.js';
import { findProducts, listGames } from '../domain/products.js';
import {
  createWantslists,
  deleteWantslist,
  getWantslist,
  listWantslists,
  offersForWant,
  updateWantslist,
  WANT_FLAGS,
} from '../domain/wants.js';
import { isHexId } from '../domain/hex-id.js';
import { badRequest, notFound } from '../errors.js';
import type { XmlObject } from '../http/xml.js';
import { parseWantslistChange } from '../routes/wantslists.js';
import type { Services } from '../services.js';
import { type Errors, failureText, fields, formErrors, redirectWithFlash, type Values } from './forms.js';
import { LIST_PAGE_SIZE, pageOf, pager, pathId } from './paging.js';
import { render } from './render.js';
import { requireUser } from './session.js';

const ITEM_FIELDS = ['target', 'count', 'wishPrice', 'minCondition', 'mailAlert', ...WANT_FLAGS];
const LANGUAGE_IDS = Object.keys(LANGUAGES).map(Number);

interface Failed {
  form: string;
  values: Values;
  errors: Errors;
}

/** A form's values as the `PUT /wantslist/:id` body the API reads, so the API's parser checks it. */
function itemBody(values: Values, languages: string[]): XmlObject {
  const item: XmlObject = {};
  for (const name of ['count', 'wishPrice', 'minCondition', ...WANT_FLAGS]) {
    if (values[name]) item[name] = values[name]!;
  }
  item.mailAlert = values.mailAlert === 'true' ? 'true' : 'false';
  if (languages.length > 0) item.idLanguage = languages;
  return item;
}

/**
 * Wants lists (the same domain functions as `GET/POST/PUT/DELETE /wantslist…`, with the body of
 * `PUT /wantslist/:id` built from the forms and read by the API's own parser): the lists, one list
 * with its items and their lowest matching offer, adding a product or a metaproduct found by name
 * with its filters and wish price (a price or a code: `+0.02`, `-0.37`, `90%`, `FROM`, `SELL`),
 * changing an item's count and wish price, deleting, and the offers an item matches now.
 */
export function wantsPages(app: FastifyInstance, services: Services): void {
  const signedIn = { onRequest: requireUser };
  const form = { onRequest: requireUser, preHandler: app.csrfProtection };

  const showLists = async (request: FastifyRequest, reply: FastifyReply, failed?: Failed) => {
    const p = pageOf(request, LIST_PAGE_SIZE);
    const lists = await listWantslists(services, request.user!.idUser);
    return render(
      request,
      reply,
      'wants',
      {
        title: 'wants.title',
        lists: lists.slice(p.offset, p.offset + p.limit),
        pager: pager(request, p, lists.length),
        games: await listGames(services),
        values: failed?.values ?? {},
        errors: failed?.errors ?? {},
      },
      failed ? 400 : 200,
    );
  };

  app.get('/wants', signedIn, async (request, reply) => showLists(request, reply));

  app.post('/wants', form, async (request, reply) => {
    const values = fields(request, ['name', 'idGame']);
    try {
      const { created, failed } = await createWantslists(services, request.user!.idUser, [values]);
      if (failed[0]) {
        const f = failed[0];
        const field = f.field === 'name' || f.field === 'idGame' ? f.field : '_form';
        return showLists(request, reply, {
          form: 'create',
          values,
          errors: { [field]: failureText(request.t, f) },
        });
      }
      return redirectWithFlash(reply, `/wants/${created[0]!.idWantslist}`, 'flash.wants.created');
    } catch (err) {
      return showLists(request, reply, {
        form: 'create',
        values,
        errors: formErrors(request.t, err, ['name', 'idGame']),
      });
    }
  });

  const listId = (request: FastifyRequest) => {
    const id = pathId(request.params, 'idWantslist');
    if (id === undefined) throw notFound('There is no such wants list.', { reason: 'unknown_wants_list' });
    return id;
  };
  const wantId = (request: FastifyRequest) => {
    const id = ((request.params as { idWant?: string }).idWant ?? '').toLowerCase();
    if (!isHexId(id)) throw notFound('There is no such item.', { reason: 'unknown_item' });
    return id;
  };

  const showList = async (
    request: FastifyRequest,
    reply: FastifyReply,
    idWantslist: number,
    failed?: Failed,
  ) => {
    const q = request.query as Record<string, string | undefined>;
    const detail = await getWantslist(services, request.user!.idUser, idWantslist);
    const p = pageOf(request, LIST_PAGE_SIZE);
    // Adding: find by name; each card offers this printing (product) or any printing (metaproduct).
    let found: Awaited<ReturnType<typeof findProducts>> | null = null;
    let searchError: Errors = {};
    if (q.search !== undefined) {
      try {
        found = await findProducts(
          services,
          { search: q.search, exact: false, idGame: detail.list.idGame, idLanguage: undefined },
          { offset: 0, limit: 20 },
        );
      } catch (err) {
        searchError = formErrors(request.t, err, ['search']);
      }
    }
    const target =
      failed?.values.target ??
      (q.idProduct ? `product:${q.idProduct}` : q.idMetaproduct ? `metaproduct:${q.idMetaproduct}` : '');
    return render(
      request,
      reply,
      'wantslist',
      {
        title: 'wantslist.title',
        titleParams: { name: detail.list.name },
        list: detail.list,
        items: detail.items.slice(p.offset, p.offset + p.limit),
        pager: pager(request, p, detail.items.length),
        search: q.search ?? '',
        searchError,
        found,
        target,
        targetName: q.name ?? '',
        flags: WANT_FLAGS.filter((f) => gameRules(detail.list.idGame).flags.includes(f)),
        conditions: CONDITIONS,
        languages: LANGUAGE_IDS,
        failed: failed ?? null,
      },
      failed || Object.keys(searchError).length > 0 ? 400 : 200,
    );
  };

  app.get('/wants/:idWantslist', signedIn, async (request, reply) =>
    showList(request, reply, listId(request)),
  );

  /** Runs one change of the list; a refusal re-renders the list with the form's values and errors. */
  const change = async (
    request: FastifyRequest,
    reply: FastifyReply,
    formName: string,
    values: Values,
    names: readonly string[],
    body: () => XmlObject,
    flash:
      'flash.wants.renamed' | 'flash.wants.itemAdded' | 'flash.wants.itemChanged' | 'flash.wants.itemDeleted',
  ) => {
    const idWantslist = listId(request);
    try {
      await updateWantslist(services, request.user!.idUser, idWantslist, parseWantslistChange(body()));
      return redirectWithFlash(reply, `/wants/${idWantslist}`, flash);
    } catch (err) {
      const errors = formErrors(request.t, err, names);
      if (errors.idProduct || errors.idMetaproduct)
        errors.target = (errors.idProduct ?? errors.idMetaproduct)!;
      return showList(request, reply, idWantslist, { form: formName, values, errors });
    }
  };

  app.post('/wants/:idWantslist/rename', form, async (request, reply) => {
    const values = fields(request, ['name']);
    return change(
      request,
      reply,
      'rename',
      values,
      ['name'],
      () => ({ action: 'editWantslist', name: values.name }),
      'flash.wants.renamed',
    );
  });

  app.post('/wants/:idWantslist/items', form, async (request, reply) => {
    const values = fields(request, ITEM_FIELDS);
    const languages = languagesOf(request);
    return change(
      request,
      reply,
      'add',
      values,
      [...ITEM_FIELDS, 'idLanguage', 'idProduct', 'idMetaproduct'],
      () => {
        const m = /^(product|metaproduct):(\d{1,9})$/.exec(values.target);
        if (!m)
          throw badRequest('Choose the card you want first.', {
            field: 'target',
            reason: 'want_target_required',
          });
        const item = itemBody(values, languages);
        item[m[1] === 'product' ? 'idProduct' : 'idMetaproduct'] = m[2]!;
        return { action: 'addItem', [m[1]!]: item };
      },
      'flash.wants.itemAdded',
    );
  });

  app.post('/wants/:idWantslist/items/:idWant', form, async (request, reply) => {
    const idWant = wantId(request);
    const values = fields(request, ['count', 'wishPrice']);
    return change(
      request,
      reply,
      `edit-${idWant}`,
      values,
      ['count', 'wishPrice'],
      () => ({
        action: 'editItem',
        want: {
          idWant,
          ...(values.count ? { count: values.count } : {}),
          ...(values.wishPrice ? { wishPrice: values.wishPrice } : {}),
        },
      }),
      'flash.wants.itemChanged',
    );
  });

  app.post('/wants/:idWantslist/items/:idWant/delete', form, async (request, reply) => {
    const idWantslist = listId(request);
    const idWant = wantId(request);
    await updateWantslist(services, request.user!.idUser, idWantslist, {
      action: 'deleteItem',
      items: [{ label: 'item', idWant }],
    });
    return redirectWithFlash(reply, `/wants/${idWantslist}`, 'flash.wants.itemDeleted');
  });

  app.post('/wants/:idWantslist/delete', form, async (request, reply) => {
    await deleteWantslist(services, request.user!.idUser, listId(request));
    return redirectWithFlash(reply, '/wants', 'flash.wants.deleted');
  });

  app.get('/wants/:idWantslist/items/:idWant', signedIn, async (request, reply) => {
    const idWantslist = listId(request);
    const p = pageOf(request, LIST_PAGE_SIZE);
    const { item, total, offers } = await offersForWant(
      services,
      request.user!.idUser,
      idWantslist,
      wantId(request),
      p,
    );
    return render(request, reply, 'want-offers', {
      title: 'wantOffers.title',
      idWantslist,
      item,
      offers,
      pager: pager(request, p, total),
    });
  });
}

function languagesOf(request: FastifyRequest): string[] {
  const v = ((request.body ?? {}) as Record<string, unknown>).idLanguage;
  return ([] as unknown[]).concat(v ?? []).filter((x): x is string => typeof x === 'string' && x !== '');
}

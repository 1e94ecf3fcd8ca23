import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAccessToken } from '../src/auth/apps.js';
import { createCoupon } from '../src/domain/account.js';
import {
  ACCOUNT,
  ACCOUNT_LINKS,
  assertShape,
  assertXmlMatchesJson,
  dynamic,
  eq,
  ERROR,
  list,
  presentList,
  MESSAGE,
  METAPRODUCT,
  type Spec,
  thread,
  want,
  wantslist,
} from './conformance-shapes.js';
import { buildWorld, getBoth, writeBoth, type World } from './conformance-world.js';
import { ApiClient, createTestApp, DIALECTS, xmlRequest } from './helpers.js';
import { buy, orderAction } from './trading-helpers.js';

/**
 * Conformance of the account, messages and wants lists (reference §1.2, §1.7, §2.1, §2.15, §2.17),
 * and of the error body every failure answers with (§3), in JSON and XML.
 */
for (const dialect of DIALECTS) {
  describe(`conformance: account, messages, wants lists, errors (${dialect})`, () => {
    let w: World;
    before(async () => {
      w = await buildWorld(dialect);
    });
    after(() => w.server.close());

    describe('account', () => {
      it('GET /account: account and its links', async () => {
        const res = await getBoth(w.buyer.api, '/account', { account: ACCOUNT, links: ACCOUNT_LINKS });
        assert.equal(res.json.account.vat, null);
        assert.equal(res.json.account.homeAddress.extra, null);
      });

      it('PUT /account/vacation and /account/language answer the account (vacation with a message)', async () => {
        await writeBoth(w.buyer.api, 'PUT', '/account/vacation?onVacation=false', undefined, {
          account: ACCOUNT,
          message: 'string',
          links: ACCOUNT_LINKS,
        });
        await writeBoth(w.buyer.api, 'PUT', '/account/language?idDisplayLanguage=1', undefined, {
          account: ACCOUNT,
          links: ACCOUNT_LINKS,
        });
      });

      it('POST /account/coupon: account and coupon[] of {couponCode, successful, message}', async () => {
        const codes = async () =>
          xmlRequest(
            `<couponCode>${await createCoupon(w.server.services, 250)}</couponCode><couponCode>NOSUCHCODE</couponCode>`,
          );
        const res = await writeBoth(
          w.buyer.api,
          'POST',
          '/account/coupon',
          await codes(),
          {
            account: ACCOUNT,
            coupon: presentList({ couponCode: 'string', successful: 'boolean', message: 'string' }, 2),
            links: ACCOUNT_LINKS,
          },
          { xmlBody: await codes() },
        );
        assert.deepEqual(
          res.json.coupon.map((c: { successful: boolean }) => c.successful),
          [true, false],
        );
      });

      it('POST /account/logout (third-party apps): {logout: "successful"}', async () => {
        const app = await createTestApp(w.server, w.buyer.user, 'thirdParty');
        const client = async () => {
          const token = await createAccessToken(w.server.services, {
            idApp: app.idApp,
            idUser: w.buyer.user.idUser,
          });
          return new ApiClient(w.server, {
            ...app,
            accessToken: token.token,
            accessTokenSecret: token.secret,
          });
        };
        const json = await (await client()).post('/account/logout', undefined, { json: true });
        assert.equal(json.status, 200, json.text);
        assertShape(json.json, { logout: eq('successful') });
        const xml = await (await client()).post('/account/logout');
        assertXmlMatchesJson(xml.text, json.json);
      });
    });

    describe('messages', () => {
      it('POST /account/messages/:idOtherUser: the thread with the message sent', async () => {
        const res = await writeBoth(
          w.buyer.api,
          'POST',
          `/account/messages/${w.seller.user.idUser}`,
          xmlRequest('<message>Is the booster still sealed?</message>'),
          thread('thread'),
        );
        assert.equal(res.json.message[0].isSending, true);
        assert.equal(res.json.partner.idUser, w.seller.user.idUser);
      });

      it('GET /account/messages: thread[] with the latest message as one element', async () => {
        await getBoth(w.seller.api, '/account/messages', { thread: list(thread('overview')) });
      });

      it('GET /account/messages/:idOtherUser and /:idMessage: the thread, its messages an array', async () => {
        const res = await getBoth(
          w.seller.api,
          `/account/messages/${w.buyer.user.idUser}`,
          thread('thread'),
          200,
          { values: false }, // reading marks them read
        );
        assert.equal(res.json.message.length, 2);
        const one = await getBoth(
          w.seller.api,
          `/account/messages/${w.buyer.user.idUser}/${res.json.message[0].idMessage}`,
          thread('thread'),
        );
        assert.equal(one.json.message.length, 1);
      });

      it('GET /account/messages/find: message[] of received messages', async () => {
        await getBoth(w.seller.api, '/account/messages/find?startDate=2000-01-01', {
          message: list(MESSAGE, 2),
        });
      });

      it('DELETE answers an empty response', async () => {
        const msgs = (await w.buyer.api.get(`/account/messages/${w.seller.user.idUser}`, { json: true })).json
          .message;
        const json = await w.buyer.api.delete(
          `/account/messages/${w.seller.user.idUser}/${msgs[0].idMessage}`,
          undefined,
          {
            json: true,
          },
        );
        assert.equal(json.status, 200, json.text);
        assert.deepEqual(json.json, {});
        const xml = await w.buyer.api.delete(
          `/account/messages/${w.seller.user.idUser}/${msgs[1].idMessage}`,
        );
        assert.equal(xml.text, '<?xml version="1.0" encoding="UTF-8"?>\n<response></response>');
      });
    });

    describe('wants lists', () => {
      let idList: number;
      const detail = (minItems = 1): Spec => ({
        wantslist: wantslist(
          presentList(
            dynamic((v) => want((v as { type: 'product' | 'metaproduct' }).type)),
            minItems,
          ),
        ),
        links: list({ rel: 'string', href: 'string', method: 'string' }, 3),
      });

      it('POST /wantslist: wantslist[] and failed[] of {error, name, idGame}', async () => {
        const body = (name: string) =>
          xmlRequest(
            `<wantslist><idGame>1</idGame><name>${name}</name></wantslist><wantslist><idGame>77</idGame><name>No game</name></wantslist>`,
          );
        const res = await writeBoth(
          w.buyer.api,
          'POST',
          '/wantslist',
          body('Burn'),
          {
            wantslist: presentList(wantslist(), 1),
            failed: list({ error: 'string', name: 'string', idGame: 'int' }),
          },
          { xmlBody: body('Spare') },
        );
        idList = res.json.wantslist[0].idWantslist;
        assert.equal(res.json.failed[0].idGame, 77, 'an id echoes as a number');
      });

      it('GET /wantslist: wantslist[] without items', async () => {
        await getBoth(w.buyer.api, '/wantslist', { wantslist: list(wantslist(), 2) });
      });

      it('PUT addItem, GET /wantslist/:id: the list with its items; the catalog’s product and metaproduct', async () => {
        const add = xmlRequest(
          `<action>addItem</action><product><idProduct>${w.magic.idProduct}</idProduct><count>2</count><wishPrice>2.00</wishPrice><idLanguage>1</idLanguage><isFoil>true</isFoil></product>` +
            `<metaproduct><idMetaproduct>${w.idMetaproduct}</idMetaproduct></metaproduct>`,
        );
        const res = await w.buyer.api.put(`/wantslist/${idList}`, add, { json: true });
        assert.equal(res.status, 200, res.text);
        assertShape(res.json, detail(2));
        const got = await getBoth(w.buyer.api, `/wantslist/${idList}`, detail(2));
        const [productWant, metaWant] = got.json.wantslist.item;
        // One mapper: the product is the catalog's list form (without links inside a want), the
        // metaproduct the catalog's Metaproduct, whatever endpoint shows them.
        const found = (await w.buyer.api.get('/products/find?search=Conformance%20Bolt', { json: true })).json
          .product;
        const { links: _links, ...listed } = found.find(
          (p: { idProduct: number }) => p.idProduct === w.magic.idProduct,
        );
        assert.deepEqual(productWant.product, listed);
        const meta = (await w.buyer.api.get(`/metaproducts/${w.idMetaproduct}`, { json: true })).json
          .metaproduct;
        assertShape(metaWant.metaproduct, METAPRODUCT);
        assert.deepEqual(metaWant.metaproduct, meta);
        assert.equal(productWant.fromPrice, 2.5);
        assert.deepEqual(productWant.idLanguage, [1]);
        assert.equal(productWant.isFoil, true);
        assert.equal(metaWant.isFoil, null);
      });

      it('PUT editItem and deleteItem answer the list in the same form; DELETE the lists left', async () => {
        const items = (await w.buyer.api.get(`/wantslist/${idList}`, { json: true })).json.wantslist.item;
        const edit = (count: number) =>
          xmlRequest(
            `<action>editItem</action><want><idWant>${items[0].idWant}</idWant><count>${count}</count></want>`,
          );
        await writeBoth(w.buyer.api, 'PUT', `/wantslist/${idList}`, edit(3), detail(2), { xmlBody: edit(4) });
        const res = await w.buyer.api.put(
          `/wantslist/${idList}`,
          xmlRequest(`<action>deleteItem</action><want><idWant>${items[1].idWant}</idWant></want>`),
          { json: true },
        );
        assertShape(res.json, detail(1));
        const lists = (await w.buyer.api.get('/wantslist', { json: true })).json.wantslist;
        const left = await w.buyer.api.delete(`/wantslist/${lists[0].idWantslist}`, undefined, {
          json: true,
        });
        assertShape(left.json, { wantslist: presentList(wantslist(), 1) });
        const xml = await w.buyer.api.delete(`/wantslist/${lists[1].idWantslist}`);
        assert.equal(xml.status, 200);
        assertShape((await w.buyer.api.delete('/wantslist/1', undefined, { json: true })).json, ERROR);
      });
    });

    describe('errors and empty answers', () => {
      /** A failure in both formats: the error body, its status in it, the XML the same tree. */
      async function failure(
        api: ApiClient,
        method: string,
        path: string,
        status: number,
        expect: { field?: string | null; code?: string | null } = {},
        body?: string,
      ) {
        const json = await api.request(method, path, { json: true, body });
        assert.equal(json.status, status, `${method} ${path}: ${json.text}`);
        assertShape(json.json, ERROR);
        assert.equal(json.json.http_status_code, status);
        if (expect.field !== undefined) assert.equal(json.json.post_data_field, expect.field);
        if (expect.code !== undefined) assert.equal(json.json.internal_error_code, expect.code);
        const xml = await api.request(method, path, { body });
        assert.equal(xml.status, status);
        // A 401's description carries the base string, which has the format segment and a nonce.
        assertXmlMatchesJson(xml.text, json.json, ERROR, { values: status !== 401 });
        return json.json;
      }

      it('400 names the element at fault', async () => {
        const e = await failure(w.buyer.api, 'GET', '/products/find?search=ab', 400, { field: 'search' });
        assert.equal(
          e.mkm_error_description,
          'Provide a search string for non-exact searches with at least 4 characters.',
        );
        assert.equal(e.http_status_code_description, 'Bad Request');
        await failure(w.seller.api, 'GET', '/stock/article/999999999', 400, { field: 'idArticle' });
      });

      it('401, 403, 404, 405 and 412 in the same body', async () => {
        const forged = new ApiClient(w.server, { ...w.buyer.api.cred, appSecret: 'wrong' });
        await failure(forged, 'GET', '/account', 401, { code: 'invalid_signature' });
        await failure(w.widget, 'GET', '/account', 403, { code: 'app_kind_not_allowed' });
        await failure(w.buyer.api, 'GET', '/no/such/resource', 404);
        await failure(w.buyer.api, 'GET', '/order/999999999', 404);
        await failure(w.buyer.api, 'PATCH', '/account', 405);
        const [o] = await buy(w.buyer.api, [[w.offers.magic.idArticle, 1]]);
        await failure(w.buyer.api, 'PUT', `/order/${o!.idOrder}`, 412, {}, orderAction('confirmReception'));
      });

      it('204: no body at all, in either format', async () => {
        for (const json of [true, false]) {
          const res = await w.seller.api.get('/stock/articles/Nothing/1', { json });
          assert.equal(res.status, 204);
          assert.equal(res.text, '');
          assert.equal(res.headers['content-range'], undefined);
        }
      });
    });
  });
}

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createCoupon } from '../src/domain/account.js';
import {
  type ApiClient,
  createTestClient,
  DIALECTS,
  startTestServer,
  type TestServer,
  xmlRequest,
} from './helpers.js';

const ACCOUNT_FIELDS = [
  'idUser',
  'username',
  'country',
  'isCommercial',
  'maySell',
  'sellerActivation',
  'riskGroup',
  'lossPercentage',
  'reputation',
  'shipsFast',
  'sellCount',
  'soldItems',
  'avgShippingTime',
  'onVacation',
  'idDisplayLanguage',
  'name',
  'homeAddress',
  'email',
  'phoneNumber',
  'vat',
  'legalInformation',
  'registerDate',
  'isActivated',
  'moneyDetails',
  'bankAccount',
  'articlesInShoppingCart',
  'unreadMessages',
];

for (const dialect of DIALECTS) {
  describe(`the account resource (${dialect})`, () => {
    let server: TestServer;
    let api: ApiClient;
    before(async () => {
      server = await startTestServer({ dialect });
      ({ api } = await createTestClient(server, {
        accountType: 'professional',
        country: 'FR',
        balanceCents: 1234,
      }));
    });
    after(() => server.close());

    it('GET /account answers every field of the spec, in order, with links (JSON)', async () => {
      const res = await api.get('/account', { json: true });
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.json), ['account', 'links']);
      assert.deepEqual(Object.keys(res.json.account), ACCOUNT_FIELDS);
      const a = res.json.account;
      assert.equal(a.isCommercial, 1);
      assert.equal(a.country, 'FR');
      assert.equal(typeof a.maySell, 'boolean');
      assert.deepEqual(Object.keys(a.name), ['firstName', 'lastName']);
      assert.deepEqual(Object.keys(a.homeAddress), ['name', 'extra', 'street', 'zip', 'city', 'country']);
      assert.deepEqual(a.moneyDetails, {
        totalBalance: 12.34,
        moneyBalance: 12.34,
        bonusBalance: 0,
        unpaidAmount: 0,
        providerRechargeAmount: 0,
      });
      assert.deepEqual(Object.keys(a.bankAccount), ['accountOwner', 'iban', 'bic', 'bankName']);
      assert.deepEqual(res.json.links, [
        { rel: 'self', href: '/account', method: 'GET' },
        { rel: 'vacation', href: '/account/vacation', method: 'PUT' },
        { rel: 'language', href: '/account/language', method: 'PUT' },
        { rel: 'list_message_threads', href: '/account/messages', method: 'GET' },
        { rel: 'redeem_coupon', href: '/account/coupon', method: 'POST' },
      ]);
    });

    it('GET /account in XML has the same fields and two-decimal money', async () => {
      const res = await api.get('/account');
      assert.equal(res.status, 200);
      let pos = 0;
      for (const field of ACCOUNT_FIELDS) {
        const at = res.text.indexOf(`<${field}`, pos);
        assert.ok(at > 0, `${field} missing or out of order`);
        pos = at;
      }
      assert.match(res.text, /<moneyBalance>12.34<\/moneyBalance>/);
      assert.match(res.text, /<bonusBalance>0.00<\/bonusBalance>/);
      assert.match(res.text, /<links><rel>self<\/rel><href>\/account<\/href><method>GET<\/method><\/links>/);
    });

    describe('PUT /account/vacation', () => {
      it('needs onVacation', async () => {
        const res = await api.put('/account/vacation', undefined, { json: true });
        assert.equal(res.status, 400);
        assert.equal(res.json.post_data_field, 'onVacation');
      });

      it('refuses values other than true and false', async () => {
        assert.equal((await api.put('/account/vacation?onVacation=yes')).status, 400);
        assert.equal((await api.put('/account/vacation?onVacation=true&cancelOrders=1')).status, 400);
      });

      it('sets and clears the vacation flag, answering the account and a message', async () => {
        const on = await api.put(
          '/account/vacation?onVacation=true&cancelOrders=false&relistItems=false',
          undefined,
          {
            json: true,
          },
        );
        assert.equal(on.status, 200);
        assert.equal(on.json.account.onVacation, true);
        assert.match(on.json.message, /vacation/);
        assert.equal((await api.get('/account', { json: true })).json.account.onVacation, true);
        const off = await api.put('/account/vacation?onVacation=false');
        assert.equal(off.status, 200);
        assert.match(off.text, /<onVacation>false<\/onVacation>/);
      });
    });

    describe('PUT /account/language', () => {
      it('accepts 1 to 5', async () => {
        const res = await api.put('/account/language?idDisplayLanguage=3', undefined, { json: true });
        assert.equal(res.status, 200);
        assert.equal(res.json.account.idDisplayLanguage, 3);
      });

      it('answers 400 for anything else', async () => {
        for (const q of [
          '',
          '?idDisplayLanguage=0',
          '?idDisplayLanguage=6',
          '?idDisplayLanguage=abc',
          '?idDisplayLanguage=2.5',
        ]) {
          assert.equal((await api.put(`/account/language${q}`)).status, 400, q);
        }
      });
    });

    describe('POST /account/coupon', () => {
      it('credits the bonus balance once per code, and says why a code fails', async () => {
        const code = await createCoupon(server.services, 500);
        const body = xmlRequest(`<couponCode>${code}</couponCode><couponCode>NO-SUCH-CODE</couponCode>`);
        const res = await api.post('/account/coupon', body, { json: true });
        assert.equal(res.status, 200, res.text);
        assert.equal(res.json.account.moneyDetails.bonusBalance, 5);
        assert.equal(res.json.account.moneyDetails.totalBalance, 17.34);
        assert.deepEqual(
          res.json.coupon.map((c: { couponCode: string; successful: boolean }) => [
            c.couponCode,
            c.successful,
          ]),
          [
            [code, true],
            ['NO-SUCH-CODE', false],
          ],
        );
        const again = await api.post('/account/coupon', xmlRequest(`<couponCode>${code}</couponCode>`), {
          json: true,
        });
        assert.equal(again.json.coupon[0].successful, false);
        assert.match(again.json.coupon[0].message, /already/);
        assert.equal(again.json.account.moneyDetails.bonusBalance, 5);
      });

      it('answers in XML with one coupon element per code', async () => {
        const code = await createCoupon(server.services, 100);
        const res = await api.post('/account/coupon', xmlRequest(`<couponCode>${code}</couponCode>`));
        assert.equal(res.status, 200);
        assert.match(
          res.text,
          new RegExp(`<coupon><couponCode>${code}</couponCode><successful>true</successful>`),
        );
      });

      it('needs a body with at least one code', async () => {
        assert.equal((await api.post('/account/coupon')).status, 400);
        assert.equal((await api.post('/account/coupon', xmlRequest(''))).status, 400);
      });

      it('lets only one of two concurrent redemptions of a code succeed', async () => {
        const code = await createCoupon(server.services, 300);
        const { api: other } = await createTestClient(server);
        const [a, b] = await Promise.all([
          api.post('/account/coupon', xmlRequest(`<couponCode>${code}</couponCode>`), { json: true }),
          other.post('/account/coupon', xmlRequest(`<couponCode>${code}</couponCode>`), { json: true }),
        ]);
        const wins = [a, b].filter((r) => r.json.coupon[0].successful).length;
        assert.equal(wins, 1);
      });
    });
  });
}

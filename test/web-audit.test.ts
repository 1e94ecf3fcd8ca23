import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { payOrder } from '../src/domain/orders.js';
import { createArticle, createProduct, type ProductFixture } from './fixtures.js';
import { DIALECTS, startTestServer, type TestServer, xmlRequest } from './helpers.js';
import { buy } from './trading-helpers.js';
import { textOf } from './web-client.js';
import { type Person, person } from './web-people.js';

/**
 * Findings of the outside audit on the pages (README, "The website"): the domain's input errors in
 * the reader's language and each beside its field, the signature debugger's request id, the orders
 * tab a seller lands on, and the stock file's game. The API's answers to the same input stay what
 * they were (English, the first field's).
 */

/** The message a page shows beside a field (`_field.eta`). */
const besideField = (html: string, name: string) =>
  new RegExp(`id="${name}-error">([^<]*)<`).exec(html)?.[1]?.replace(/&#39;/g, "'");

for (const dialect of DIALECTS) {
  describe(`page errors in the reader's language (${dialect})`, () => {
    let server: TestServer;
    let seller: Person;
    let buyer: Person;
    let product: ProductFixture;

    before(async () => {
      server = await startTestServer({ dialect });
      seller = await person(server, 'seller', { landing: '/profile' });
      buyer = await person(server, 'buyer', {
        balanceCents: 100_000,
        sellerActivation: 0,
        landing: '/profile',
      });
      product = await createProduct(server, { enName: 'Audit Wyvern' });
    });
    after(() => server.close());

    it('a new article: every field at fault, beside its field, in French; the API still answers the first in English', async () => {
      await seller.web.get(`/stock/new?idProduct=${product.idProduct}&lang=fr`);
      const form = {
        idProduct: String(product.idProduct),
        count: '0',
        price: 'cheap',
        idLanguage: '1',
        condition: 'NM',
        comments: 'x'.repeat(600),
      };
      const res = await seller.web.post('/stock/new?lang=fr', form);
      assert.equal(res.status, 400);
      assert.equal(besideField(res.text, 'count'), 'Au moins 1.');
      assert.equal(
        besideField(res.text, 'price'),
        'Indiquez un prix avec au plus deux décimales, p. ex. 1,50 ou 1.50.',
      );
      assert.equal(besideField(res.text, 'comments'), 'Au plus 500 caractères.');
      assert.doesNotMatch(res.text, /is not a price|must be at least/);

      // The API: one failed article, the first problem (count), in English, as before.
      const api = await seller.api.post(
        '/stock',
        xmlRequest(
          `<article><idProduct>${product.idProduct}</idProduct><count>0</count><price>cheap</price><comments>${'x'.repeat(600)}</comments></article>`,
        ),
        { json: true },
      );
      assert.equal(api.status, 200, api.text);
      assert.equal(api.json.inserted[0].success, false);
      assert.equal(api.json.inserted[0].error, '"count" must be at least 1 (got 0).');
    });

    it("a stock article's count and the domain's copies rule in German", async () => {
      const article = await createArticle(server, seller.user, product, { count: 2 });
      await seller.web.get(`/stock/${article.idArticle}?lang=de`);
      const bad = await seller.web.post(`/stock/${article.idArticle}/count?lang=de`, { count: 'drei' });
      assert.equal(bad.status, 400);
      assert.match(textOf(bad.text), /Geben Sie eine ganze Zahl an\./);
      const change = await seller.web.post(`/stock/${article.idArticle}?lang=de`, {
        price: '0',
        idLanguage: '1',
        condition: 'XX',
        comments: '',
      });
      assert.equal(change.status, 400);
      assert.equal(besideField(change.text, 'price'), 'Ein Preis muss größer als 0 sein.');
      assert.equal(besideField(change.text, 'condition'), 'Wählen Sie einen Zustand aus der Liste.');
    });

    it('the cart address: each missing field beside it, in Spanish; the API answers the first', async () => {
      await buyer.web.get('/cart?lang=es');
      const res = await buyer.web.post('/cart/address?lang=es', {
        name: '',
        extra: '',
        street: '',
        zip: '1',
        city: 'Madrid',
        country: 'Atlantis',
      });
      assert.equal(res.status, 400);
      assert.equal(besideField(res.text, 'name'), 'Este campo es obligatorio.');
      assert.equal(besideField(res.text, 'street'), 'Este campo es obligatorio.');
      assert.ok(besideField(res.text, 'country'), res.text);
      assert.doesNotMatch(res.text, /is required|is not a country/);
      const api = await buyer.api.put(
        '/shoppingcart/shippingaddress',
        xmlRequest(
          '<name></name><street></street><zip>1</zip><city>Madrid</city><country>Atlantis</country>',
        ),
        { json: true },
      );
      assert.equal(api.status, 400);
      assert.equal(
        api.json.mkm_error_description,
        '"Atlantis" is not a country code (use e.g. D, FR, IT, GB).',
      );
      assert.equal(api.json.internal_error_code, null);
      assert.equal(api.json.post_data_field, 'country');
    });

    it("an offer of one's own, a message to nobody, a wants list twice: in Italian", async () => {
      const own = await createArticle(server, seller.user, product, { count: 1 });
      await seller.web.get(`/products/${product.idProduct}?lang=it`);
      const add = await seller.web.post(`/products/${product.idProduct}/cart?lang=it`, {
        idArticle: String(own.idArticle),
        count: '1',
      });
      assert.equal(add.status, 400);
      assert.match(textOf(add.text), /Questa offerta è tua: non puoi comprarla\./);

      await seller.web.get('/messages?lang=it');
      const msg = await seller.web.post('/messages?lang=it', { username: 'nobody-at-all', message: 'ciao' });
      assert.equal(msg.status, 400);
      assert.equal(besideField(msg.text, 'username'), 'Questo utente non esiste.');

      await seller.web.get('/wants?lang=it');
      const first = await seller.web.post('/wants?lang=it', { name: 'Draghi', idGame: '1' });
      assert.equal(first.status, 303, first.text);
      await seller.web.get('/wants?lang=it');
      const twice = await seller.web.post('/wants?lang=it', { name: 'Draghi', idGame: '1' });
      assert.equal(twice.status, 400);
      assert.match(textOf(twice.text), /Hai già una lista dei desideri con questo nome\./);
    });

    it('the bank details of the seller activation: every field at fault, in French', async () => {
      await buyer.web.get('/profile?lang=fr');
      const res = await buyer.web.post('/profile/seller-activation?lang=fr', {
        bankAccountOwner: 'Test Buyer',
        iban: 'DE00 0000',
        bic: '12',
        bankName: '',
        phoneNumber: '+49 30 123456',
      });
      assert.equal(res.status, 400);
      assert.equal(
        besideField(res.text, 'iban'),
        'Ce n’est pas un IBAN (p. ex. DE89 3704 0044 0532 0130 00).',
      );
      assert.equal(
        besideField(res.text, 'bic'),
        'Ce n’est pas un BIC (8 ou 11 lettres et chiffres, p. ex. COBADEFFXXX).',
      );
      assert.equal(besideField(res.text, 'bankName'), 'Ce champ est obligatoire.');
    });

    it('the signature debugger: a bad id is a 400 saying so, an unknown one a 404 of yours', async () => {
      const bad = await seller.web.get('/signature-debugger?request=abc&lang=fr');
      assert.equal(bad.status, 400);
      assert.match(textOf(bad.text), /« abc » n’est pas un numéro de requête/);
      assert.doesNotMatch(bad.text, /request 0/);
      const unknown = await seller.web.get('/signature-debugger?request=987654');
      assert.equal(unknown.status, 404);
      assert.match(textOf(unknown.text), /There is no request 987654 of yours in your request log\./);
      const page = await seller.web.get('/requests/abc');
      assert.equal(page.status, 400);
    });

    it("a seller's Orders link opens the seller's tab; a buyer's the buyer's", async () => {
      const sold = await createArticle(server, seller.user, product, { count: 1, price: 150 });
      const checkout = await buy(buyer.api, [[sold.idArticle, 1]]);
      const idOrder = checkout[0]!.idOrder;
      await payOrder(server.services, idOrder);

      const sellerList = await seller.web.get('/orders');
      assert.equal(sellerList.status, 200);
      assert.match(sellerList.text, /href="\/orders\?actor=seller&amp;state=paid" aria-current="page"/);
      assert.match(sellerList.text, new RegExp(`href="/orders/${idOrder}"`));
      const buyerList = await buyer.web.get('/orders');
      assert.match(buyerList.text, /href="\/orders\?actor=buyer&amp;state=paid" aria-current="page"/);
      assert.match(buyerList.text, new RegExp(`href="/orders/${idOrder}"`));
      // A named tab is the one named.
      const asBuyer = await seller.web.get('/orders?actor=buyer');
      assert.doesNotMatch(asBuyer.text, new RegExp(`href="/orders/${idOrder}"`));
    });

    it('one paging rule on every list: not a page number is a 400 in the reader’s language', async () => {
      for (const path of [
        '/orders',
        '/stock',
        '/messages',
        '/wants',
        '/requests',
        `/products/${product.idProduct}`,
      ]) {
        const res = await seller.web.get(`${path}?page=abc&lang=fr`);
        assert.equal(res.status, 400, path);
        assert.match(textOf(res.text), /« abc » n’est pas un numéro de page \(1 à 100000\)\./, path);
      }
      assert.equal((await seller.web.get('/orders?page=2')).status, 200);
    });

    it('countries by name in the reader’s language, not as codes', async () => {
      const page = await buyer.web.get(`/users/${seller.user.idUser}?lang=fr`);
      assert.equal(page.status, 200);
      assert.match(page.text, /<dd data-country="D">Allemagne<\/dd>/);
      const profile = await buyer.web.get('/profile?lang=de');
      assert.match(textOf(profile.text), /10115 Berlin \(Deutschland\)/);
      await createArticle(server, seller.user, product, { count: 1 });
      const offers = await buyer.web.get(`/products/${product.idProduct}?lang=it`);
      assert.match(offers.text, /<span class="tag" data-country="D">Germania<\/span>/);
    });

    it("the stock file's game: not an id is a 400, an unknown game a 404", async () => {
      const bad = await seller.web.get('/stock/file.csv?idGame=abc&lang=de');
      assert.equal(bad.status, 400);
      assert.match(textOf(bad.text), /„abc“ ist keine Kennung/);
      const unknown = await seller.web.get('/stock/file.csv?idGame=999999');
      assert.equal(unknown.status, 404);
      assert.match(textOf(unknown.text), /There is no game 999999\./);
      const good = await seller.web.get('/stock/file.csv?idGame=1');
      assert.equal(good.status, 200);
    });
  });
}

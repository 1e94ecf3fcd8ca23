import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashPassword } from '../src/auth/passwords.js';
import { refreshPriceGuide } from '../src/domain/priceguide.js';
import { setPasswordHash } from '../src/store/users.js';
import { createArticles, createMetaproduct, createProduct, type ProductFixture } from './fixtures.js';
import { countRows, DIALECTS, startTestServer, type TestServer, xmlRequest } from './helpers.js';
import { addToCart, articleCount, balances, createTrader, offer, type Trader } from './trading-helpers.js';
import { textOf, WebClient } from './web-client.js';

/**
 * The shop pages through HTTP (issue 17, part 1), as a browser without JavaScript uses them: the
 * search box, games → expansions → products, the product page with its offers and filters, the
 * seller page, the cart, checkout and paying. Each page is held to the signed API: what one
 * changes, the other shows, and a filter or a refusal reads the same in both.
 */

const PASSWORD = 'shop test password';
let passwordHash = '';

interface WebTrader extends Trader {
  web: WebClient;
}

async function webTrader(
  server: TestServer,
  options: Parameters<typeof createTrader>[1] & { idDisplayLanguage?: number } = {},
): Promise<WebTrader> {
  const trader = await createTrader(server, options);
  passwordHash ||= await hashPassword(PASSWORD);
  const db = server.services.database.db;
  await setPasswordHash(db, trader.user.idUser, passwordHash);
  if (options.idDisplayLanguage) {
    await db
      .updateTable('users')
      .set({ idDisplayLanguage: options.idDisplayLanguage })
      .where('idUser', '=', trader.user.idUser)
      .execute();
  }
  const web = new WebClient(server);
  const signed = await web.signIn(trader.user.username, PASSWORD);
  assert.equal(signed.status, 303, signed.text);
  return { ...trader, web };
}

/** The ids of the offer rows a page shows, in order. */
const offerIds = (html: string) => [...html.matchAll(/<tr id="offer-(\d+)">/g)].map((m) => Number(m[1]));
/** What a `data-money="…"` cell of the balance page says. */
const moneyCell = (html: string, name: string) =>
  new RegExp(`data-money="${name}">(?:<strong>)?([^<]*)<`).exec(html)?.[1];

for (const dialect of DIALECTS) {
  describe(`the shop pages (${dialect})`, () => {
    let server: TestServer;
    let seller: WebTrader;
    let seller2: WebTrader;
    let buyer: WebTrader;
    let card: ProductFixture;
    let reprint: ProductFixture;

    before(async () => {
      server = await startTestServer({ dialect });
      seller = await webTrader(server, { name: 'shopseller', country: 'D' });
      seller2 = await webTrader(server, { name: 'shopseller', country: 'IT' });
      buyer = await webTrader(server, { name: 'shopbuyer', country: 'FR', balanceCents: 5_000 });
      const meta = await createMetaproduct(server, 'Shivan Dragon');
      card = await createProduct(server, {
        enName: 'Shivan Dragon',
        names: { 1: 'Shivan Dragon', 2: 'Dragon de Shiva', 3: 'Shivanischer Drache' },
        idMetaproduct: meta,
        rarity: 'Rare',
      });
      reprint = await createProduct(server, { enName: 'Shivan Dragon', idMetaproduct: meta });
    });
    after(() => server.close());

    it('finds cards with the search of GET /products/find, in the reader’s language, and says why a search is refused', async () => {
      const anon = new WebClient(server);
      const found = await anon.get('/cards?search=Shivan');
      assert.equal(found.status, 200);
      assert.ok(found.text.includes(`href="/products/${card.idProduct}"`));
      assert.ok(found.text.includes(`href="/products/${reprint.idProduct}"`));

      // The French reader types and reads French names.
      const fr = await webTrader(server, { name: 'lecteur', idDisplayLanguage: 2 });
      const french = await fr.web.get('/cards?search=Dragon+de+Shiva');
      assert.match(textOf(french.text), /Dragon de Shiva/);
      assert.ok(french.text.includes(`href="/products/${card.idProduct}"`));

      const short = await anon.get('/cards?search=Shi');
      assert.equal(short.status, 400);
      const api = await buyer.api.get('/products/find?search=Shi', { json: true });
      assert.equal(api.status, 400);
      const description = (api.json as { mkm_error_description: string }).mkm_error_description;
      // The same rule, said in the reader's language beside the field (English here).
      assert.match(description, /at least 4 characters/);
      assert.ok(short.text.includes('id="search-error">Type at least 4 characters.<'), short.text);
    });

    it('walks games → expansions → products, and 404s what does not exist', async () => {
      const anon = new WebClient(server);
      const games = await anon.get('/cards');
      assert.ok(games.text.includes('href="/games/1"'));
      const game = await anon.get('/games/1');
      assert.equal(game.status, 200);
      assert.ok(game.text.includes(`href="/expansions/${card.idExpansion}"`));
      const expansion = await anon.get(`/expansions/${card.idExpansion}`);
      assert.ok(expansion.text.includes(`href="/products/${card.idProduct}"`));
      assert.equal((await anon.get('/games/999999')).status, 404);
      assert.equal((await anon.get('/expansions/999999')).status, 404);
      assert.equal((await anon.get('/products/999999')).status, 404);
      assert.equal((await anon.get('/products/abc')).status, 400);
    });

    it('shows a product with its names, rarity, reprints and price guide, as GET /products/:id gives them', async () => {
      await offer(server, seller.user, { product: card, price: 250 });
      await offer(server, seller2.user, { product: card, price: 400, condition: 'EX' });
      await refreshPriceGuide(server.services);
      const api = await buyer.api.get(`/products/${card.idProduct}`, { json: true });
      const product = (api.json as { product: { priceGuide: Record<string, number>; rarity: string } })
        .product;
      const page = await new WebClient(server).get(`/products/${card.idProduct}?lang=de`);
      assert.equal(page.status, 200);
      assert.match(page.text, /<h1>Shivanischer Drache<\/h1>/);
      assert.match(page.text, /id="rarity">Rare</);
      assert.equal(product.rarity, 'Rare');
      assert.ok(page.text.includes(`href="/products/${reprint.idProduct}"`), 'the reprint is linked');
      // Every price-guide value of the API is on the page, in German money.
      for (const [key, value] of Object.entries(product.priceGuide)) {
        const shown = new RegExp(`data-guide="${key}">([^<]*)<`).exec(page.text)?.[1];
        const expected = new Intl.NumberFormat('de-DE', { style: 'currency', currency: 'EUR' }).format(value);
        assert.equal(shown, expected, key);
      }
      assert.ok(Object.keys(product.priceGuide).length > 0);
    });

    it('pages offers by 100, cheapest first, and filters them as GET /articles/:id does', async () => {
      const crowded = await createProduct(server, { enName: 'Crowded Card' });
      await createArticles(server, seller.user, crowded, 130, (i) => ({
        price: 100 + i,
        idLanguage: i % 3 === 0 ? 3 : 1,
        condition: i % 2 === 0 ? 'NM' : 'PL',
        isFoil: i % 5 === 0 ? 1 : 0,
      }));
      const anon = new WebClient(server);
      const first = await anon.get(`/products/${crowded.idProduct}`);
      const apiFirst = await buyer.api.get(`/articles/${crowded.idProduct}?start=0&maxResults=100`, {
        json: true,
      });
      const apiIds = (apiFirst.json as { article: { idArticle: number }[] }).article.map((a) => a.idArticle);
      assert.equal(offerIds(first.text).length, 100);
      assert.deepEqual(offerIds(first.text), apiIds);
      assert.match(textOf(first.text), /1–100 of 130/);
      assert.ok(first.text.includes(`href="/products/${crowded.idProduct}?page=2"`));
      const second = await anon.get(`/products/${crowded.idProduct}?page=2`);
      assert.equal(offerIds(second.text).length, 30);

      const query = 'idLanguage=3&minCondition=NM&isFoil=true';
      const filtered = await anon.get(`/products/${crowded.idProduct}?${query}`);
      const apiFiltered = await buyer.api.get(`/articles/${crowded.idProduct}?${query}`, { json: true });
      const expected = (apiFiltered.json as { article: { idArticle: number }[] }).article.map(
        (a) => a.idArticle,
      );
      assert.ok(expected.length > 0 && expected.length < 130);
      assert.deepEqual(offerIds(filtered.text), expected);
      assert.ok(
        filtered.text.includes('<option value="NM" selected>'),
        'the filter form keeps what was chosen',
      );

      // As a browser sends the form: every field, the unused ones empty ("any").
      const asForm = await anon.get(
        `/products/${crowded.idProduct}?idLanguage=3&minCondition=NM&isFoil=true&isSigned=&isAltered=&isPlayset=&userType=&sellerCountry=&minUserScore=`,
      );
      assert.equal(asForm.status, 200);
      assert.deepEqual(offerIds(asForm.text), expected);

      const bad = await anon.get(`/products/${crowded.idProduct}?minCondition=ZZ`);
      assert.equal(bad.status, 400);
      const apiBad = await buyer.api.get(`/articles/${crowded.idProduct}?minCondition=ZZ`, { json: true });
      const description = (apiBad.json as { mkm_error_description: string }).mkm_error_description;
      assert.match(description, /minCondition must be one of/);
      assert.ok(bad.text.includes('id="minCondition-error">Choose a condition from the list.<'), bad.text);
      assert.equal(offerIds(bad.text).length, 0);
    });

    it('shows a seller’s public face and offers, never their address or email', async () => {
      const product = await createProduct(server, { enName: 'Seller Page Card', rarity: 'Mythic' });
      await offer(server, seller2.user, { product, price: 777, comments: '<script>alert(1)</script> mint' });
      const page = await new WebClient(server).get(`/users/${seller2.user.idUser}`);
      assert.equal(page.status, 200);
      assert.ok(page.text.includes(seller2.user.username));
      assert.ok(!page.text.includes(seller2.user.street!), 'no street');
      assert.ok(!page.text.includes(seller2.user.lastName), 'no last name');
      assert.ok(!page.text.includes(seller2.user.phoneNumber!), 'no phone');
      assert.ok(page.text.includes('&lt;script&gt;alert(1)&lt;/script&gt; mint'), 'markup is text');
      assert.ok(!page.text.includes('<script>alert(1)'));
      const byName = await new WebClient(server).get(`/users/${seller2.user.username}?name=seller+page`);
      const api = await buyer.api.get(`/users/${seller2.user.idUser}/articles?name=seller+page`, {
        json: true,
      });
      const ids = (api.json as { article: { idArticle: number }[] }).article.map((a) => a.idArticle);
      assert.equal(ids.length, 1);
      assert.deepEqual(offerIds(byName.text), ids);
      const bad = await new WebClient(server).get(`/users/${seller2.user.idUser}?minPrice=abc`);
      assert.equal(bad.status, 400);
      assert.match(bad.text, /id="minPrice-error">/);
      assert.equal((await new WebClient(server).get('/users/nobody-at-all')).status, 404);
    });

    it('adds an offer to the cart with a count, and the API sees it; a refusal says why and changes nothing', async () => {
      const product = await createProduct(server, { enName: 'Cart Card' });
      const a = await offer(server, seller.user, { product, price: 300, count: 3 });
      await buyer.web.get(`/products/${product.idProduct}?minCondition=NM`);
      const added = await buyer.web.post(`/products/${product.idProduct}/cart?minCondition=NM`, {
        idArticle: String(a.idArticle),
        count: '2',
      });
      assert.equal(added.status, 303, added.text);
      assert.equal(added.location, `/products/${product.idProduct}?minCondition=NM`);
      const api = await buyer.api.get('/shoppingcart', { json: true });
      const lines = (
        api.json as { shoppingCart: { article: { idArticle: number; count: number }[] }[] }
      ).shoppingCart.flatMap((r) => r.article);
      assert.deepEqual(
        lines.filter((l) => l.idArticle === a.idArticle).map((l) => l.count),
        [2],
      );
      assert.equal(await articleCount(server, a.idArticle), 1);

      // Too many: the domain's own reason beside the offer, nothing changed.
      await buyer.web.get(`/products/${product.idProduct}`);
      const reservationsBefore = await countRows(server, 'reservationArticles');
      const tooMany = await buyer.web.post(`/products/${product.idProduct}/cart`, {
        idArticle: String(a.idArticle),
        count: '5',
      });
      assert.equal(tooMany.status, 400);
      assert.ok(
        tooMany.text.includes(`id="offer-${a.idArticle}-error">Only 1 copy of this offer is available.<`),
        tooMany.text.slice(0, 200),
      );
      assert.equal(await articleCount(server, a.idArticle), 1);
      assert.equal(await countRows(server, 'reservationArticles'), reservationsBefore);

      const zero = await buyer.web.post(`/products/${product.idProduct}/cart`, {
        idArticle: String(a.idArticle),
        count: '0',
      });
      assert.equal(zero.status, 400);
      assert.match(zero.text, /At least 1\./);

      // Without the CSRF token: 403, nothing added.
      const forged = await buyer.web.post(`/products/${product.idProduct}/cart`, {
        _csrf: '',
        idArticle: String(a.idArticle),
        count: '1',
      });
      assert.equal(forged.status, 403);
      assert.equal(await articleCount(server, a.idArticle), 1);

      // Signed out: to the sign-in page, nothing added.
      const anon = new WebClient(server);
      await anon.get(`/products/${product.idProduct}`);
      const out = await anon.post(`/products/${product.idProduct}/cart`, {
        idArticle: String(a.idArticle),
        count: '1',
      });
      assert.equal(out.status, 303);
      assert.match(out.location ?? '', /^\/login/);
      assert.equal(await articleCount(server, a.idArticle), 1);

      // The seller cannot buy their own.
      await seller.web.get(`/products/${product.idProduct}`);
      const own = await seller.web.post(`/products/${product.idProduct}/cart`, {
        idArticle: String(a.idArticle),
        count: '1',
      });
      assert.equal(own.status, 400);
      assert.match(own.text, /is your own: you cannot buy it/);
    });

    it('shows what the API put in the cart, with reservations per seller, shipping, totals and expiry', async () => {
      const client = await webTrader(server, { name: 'apicart', country: 'FR' });
      const product = await createProduct(server, { enName: 'Api Cart Card' });
      const x = await offer(server, seller.user, { product, price: 150, comments: '<b>bold</b>' });
      const y = await offer(server, seller2.user, { product, price: 275 });
      const res = await addToCart(client.api, [
        [x.idArticle, 1],
        [y.idArticle, 1],
      ]);
      assert.equal(res.status, 200);
      const cart = res.json as {
        shoppingCart: { idReservation: number; totalValue: number; shippingMethod: { price: number } }[];
      };
      const page = await client.web.get('/cart');
      assert.equal(page.status, 200);
      assert.equal(cart.shoppingCart.length, 2);
      for (const r of cart.shoppingCart) {
        assert.ok(page.text.includes(`id="reservation-${r.idReservation}"`));
        const shown = new RegExp(`data-total="${r.idReservation}"><strong>([^<]*)<`).exec(page.text)?.[1];
        assert.equal(
          shown,
          new Intl.NumberFormat('en-GB', { style: 'currency', currency: 'EUR' }).format(r.totalValue),
        );
      }
      assert.match(textOf(page.text), /Reserved for you until/);
      assert.ok(page.text.includes(`href="/products/${product.idProduct}"`));

      // Removing on the page is the API's remove.
      await client.web.post('/cart/remove', { idArticle: String(x.idArticle), count: '1' });
      const after = await client.api.get('/shoppingcart', { json: true });
      assert.equal((after.json as { shoppingCart: unknown[] }).shoppingCart.length, 1);
      assert.equal(await articleCount(server, x.idArticle), 1);
    });

    it('sets the shipping address and method; errors beside the field, other buyers’ reservations 404', async () => {
      const client = await webTrader(server, { name: 'address', country: 'FR' });
      const product = await createProduct(server, { enName: 'Address Card' });
      const x = await offer(server, seller.user, { product, price: 120 });
      await addToCart(client.api, [[x.idArticle, 1]]);
      const before = await client.api.get('/shoppingcart', { json: true });
      const idReservation = (before.json as { shoppingCart: { idReservation: number }[] }).shoppingCart[0]!
        .idReservation;

      await client.web.get('/cart');
      const bad = await client.web.post('/cart/address', {
        name: '<i>Jean</i>',
        extra: '',
        street: '1 rue',
        zip: '75001',
        city: 'Paris',
        country: 'XX',
      });
      assert.equal(bad.status, 400);
      assert.match(bad.text, /id="country-error">Choose your country\./);
      assert.ok(bad.text.includes('value="&lt;i&gt;Jean&lt;/i&gt;"'), 'what was typed comes back as text');
      const unchanged = await client.api.get('/shoppingcart', { json: true });
      assert.deepEqual(
        (unchanged.json as { shippingAddress: unknown }).shippingAddress,
        (before.json as { shippingAddress: unknown }).shippingAddress,
      );

      const good = await client.web.post('/cart/address', {
        name: 'Jean Client',
        extra: '',
        street: '2 rue du Bac',
        zip: '75007',
        city: 'Paris',
        country: 'D',
      });
      assert.equal(good.status, 303);
      const api = await client.api.get('/shoppingcart', { json: true });
      const address = (api.json as { shippingAddress: { name: string; country: string; city: string } })
        .shippingAddress;
      assert.equal(address.name, 'Jean Client');
      assert.equal(address.country, 'D');

      // Through the API, seen on the page.
      await client.api.put(
        '/shoppingcart/shippingaddress',
        xmlRequest(
          '<name>Via Api</name><street>Hauptstr. 1</street><zip>10115</zip><city>Berlin</city><country>D</country>',
        ),
      );
      const page = await client.web.get('/cart');
      assert.ok(page.text.includes('value="Via Api"'));

      // A method: the one the API lists.
      const methods = await client.api.get(`/shoppingcart/shippingmethod/${idReservation}`, { json: true });
      const list = (methods.json as { availableMethod: { idShippingMethod: number }[] }).availableMethod;
      const chosen = list[list.length - 1]!.idShippingMethod;
      const set = await client.web.post(`/cart/reservations/${idReservation}/method`, {
        idShippingMethod: String(chosen),
      });
      assert.equal(set.status, 303);
      const now = await client.api.get('/shoppingcart', { json: true });
      assert.equal(
        (now.json as { shoppingCart: { shippingMethod: { idShippingMethod: number } }[] }).shoppingCart[0]!
          .shippingMethod.idShippingMethod,
        chosen,
      );
      const wrong = await client.web.post(`/cart/reservations/${idReservation}/method`, {
        idShippingMethod: '9999',
      });
      assert.equal(wrong.status, 400);
      assert.match(wrong.text, /This shipping method is not available for these articles\./);

      // Someone else's reservation: 404, theirs unchanged.
      await buyer.web.get('/cart');
      const theirs = await buyer.web.post(`/cart/reservations/${idReservation}/method`, {
        idShippingMethod: String(list[0]!.idShippingMethod),
      });
      assert.equal(theirs.status, 404);
      const still = await client.api.get('/shoppingcart', { json: true });
      assert.equal(
        (still.json as { shoppingCart: { shippingMethod: { idShippingMethod: number } }[] }).shoppingCart[0]!
          .shippingMethod.idShippingMethod,
        chosen,
      );
    });

    it('checks out into orders and pays them from the balances, as `order pay` does; the API agrees', async () => {
      const client = await webTrader(server, { name: 'payer', country: 'FR', balanceCents: 1_000 });
      const product = await createProduct(server, { enName: 'Pay Card' });
      const x = await offer(server, seller.user, { product, price: 400 });
      const y = await offer(server, seller2.user, { product, price: 900 });
      await client.web.get(`/products/${product.idProduct}`);
      for (const a of [x, y]) {
        const r = await client.web.post(`/products/${product.idProduct}/cart`, {
          idArticle: String(a.idArticle),
          count: '1',
        });
        assert.equal(r.status, 303);
      }
      await client.web.get('/cart');
      const checkout = await client.web.post('/cart/checkout');
      assert.equal(checkout.status, 303);
      assert.equal(checkout.location, '/balance#unpaid');
      const bought = await client.api.get('/orders/buyer/bought', { json: true });
      const orders = (
        bought.json as { order: { idOrder: number; totalValue: number; seller: { idUser: number } }[] }
      ).order;
      assert.equal(orders.length, 2);
      const page = await client.web.get('/balance');
      assert.match(textOf(page.text), /2 orders are waiting for your payment/);
      for (const o of orders) assert.ok(page.text.includes(`id="order-${o.idOrder}"`));

      const cheap = orders.find((o) => o.seller.idUser === seller.user.idUser)!;
      const dear = orders.find((o) => o.seller.idUser === seller2.user.idUser)!;
      // Too little money for the dear one: the domain's reason beside it, nothing charged.
      const refused = await client.web.post(`/balance/orders/${dear.idOrder}/pay`);
      assert.equal(refused.status, 400);
      // In the reader's words, not the operator's (audit: it was the CLI's English on every page).
      assert.ok(
        refused.text.includes(
          `id="order-${dear.idOrder}-error">Your balance does not cover this order’s total`,
        ),
        refused.text.match(/id="order-\d+-error">[^<]*/)?.[0],
      );
      const refusedDe = await client.web.post(`/balance/orders/${dear.idOrder}/pay?lang=de`);
      assert.equal(refusedDe.status, 400);
      assert.ok(refusedDe.text.includes('Ihr Guthaben deckt die Summe dieser Bestellung nicht'));
      assert.equal((await balances(server, client.user.idUser)).moneyBalance, 1_000);

      // Another user cannot pay it (404), nor the seller.
      await seller2.web.get('/balance');
      assert.equal((await seller2.web.post(`/balance/orders/${dear.idOrder}/pay`)).status, 404);
      await buyer.web.get('/balance');
      assert.equal((await buyer.web.post(`/balance/orders/${cheap.idOrder}/pay`)).status, 404);
      // Without CSRF: 403.
      assert.equal(
        (await client.web.post(`/balance/orders/${cheap.idOrder}/pay`, { _csrf: '' })).status,
        403,
      );
      assert.equal((await balances(server, client.user.idUser)).moneyBalance, 1_000);

      await client.web.get('/balance');
      const paid = await client.web.post(`/balance/orders/${cheap.idOrder}/pay`);
      assert.equal(paid.status, 303);
      const order = await client.api.get(`/order/${cheap.idOrder}`, { json: true });
      assert.equal((order.json as { order: { state: { state: string } } }).order.state.state, 'paid');
      assert.equal((await balances(server, client.user.idUser)).moneyBalance, 1_000 - cheap.totalValue * 100);

      // Test money, then the dear one is paid too.
      await client.web.get('/balance');
      assert.equal((await client.web.post('/balance/test-money')).status, 303);
      const account = await client.api.get('/account', { json: true });
      const details = (account.json as { account: { moneyDetails: Record<string, number> } }).account
        .moneyDetails;
      const shown = await client.web.get('/balance');
      const euro = (v: number) =>
        new Intl.NumberFormat('en-GB', { style: 'currency', currency: 'EUR' }).format(v);
      for (const key of [
        'totalBalance',
        'moneyBalance',
        'bonusBalance',
        'unpaidAmount',
        'providerRechargeAmount',
      ]) {
        assert.equal(moneyCell(shown.text, key), euro(details[key]!), key);
      }
      const second = await client.web.post(`/balance/orders/${dear.idOrder}/pay`);
      assert.equal(second.status, 303);
      const none = await client.api.get('/orders/buyer/bought', { json: true });
      assert.equal(none.status, 204);
      assert.match(textOf((await client.web.get('/balance')).text), /You have no orders to pay/);
    });

    it('refuses a checkout without an address, in the reader’s language and without API calls', async () => {
      // A newcomer registers without a street; the page used to show the API's English text, which
      // tells a browser user to call PUT /shoppingcart/shippingaddress (audit of issue 17).
      const product = await createProduct(server, { enName: 'No Address Card' });
      const expected = [
        [1, 'The shipping address is incomplete: fill in the name, street'],
        [3, 'Die Lieferadresse ist unvollständig: Tragen Sie unter Lieferadresse'],
      ] as const;
      for (const [idDisplayLanguage, text] of expected) {
        const client = await webTrader(server, {
          name: `noaddress${idDisplayLanguage}`,
          country: 'FR',
          idDisplayLanguage,
        });
        await server.services.database.db
          .updateTable('users')
          .set({ street: '' })
          .where('idUser', '=', client.user.idUser)
          .execute();
        const x = await offer(server, seller.user, { product, price: 100 });
        await addToCart(client.api, [[x.idArticle, 1]]);
        await client.web.get('/cart');
        const ordersBefore = await countRows(server, 'orders');
        const res = await client.web.post('/cart/checkout');
        assert.equal(res.status, 400);
        assert.ok(
          res.text.includes(`id="checkout-error">${text}`),
          res.text.match(/id="checkout-error">[^<]*/)?.[0],
        );
        assert.doesNotMatch(res.text, /PUT \/shoppingcart/);
        assert.equal(await countRows(server, 'orders'), ordersBefore);
        // The API keeps its own description and now names the case with a code, in both formats.
        const api = await client.api.put('/shoppingcart/checkout', undefined, { json: true });
        assert.equal(api.status, 400);
        assert.match(api.json.mkm_error_description, /^The shipping address has no street: set it with PUT/);
        assert.equal(api.json.internal_error_code, 'shipping_address_incomplete');
        const xml = await client.api.put('/shoppingcart/checkout');
        assert.equal(xml.status, 400);
        assert.match(xml.text, /<internal_error_code>shipping_address_incomplete<\/internal_error_code>/);
        assert.equal(await countRows(server, 'orders'), ordersBefore);
      }
    });

    it('speaks the reader’s display language and writes euros as they do', async () => {
      const reader = await webTrader(server, { name: 'leser', idDisplayLanguage: 3, balanceCents: 123_456 });
      const balance = await reader.web.get('/balance');
      assert.match(balance.text, /<h1>Ihr Guthaben<\/h1>/);
      const de = new Intl.NumberFormat('de-DE', { style: 'currency', currency: 'EUR' }).format(1234.56);
      assert.equal(moneyCell(balance.text, 'moneyBalance'), de);
      assert.match((await reader.web.get('/cart')).text, /<h1>Ihr Warenkorb<\/h1>/);
      const offers = await reader.web.get(`/products/${card.idProduct}`);
      assert.match(offers.text, /<h1>Shivanischer Drache<\/h1>/);
      assert.match(offers.text, /In den Warenkorb/);
      // ?lang= overrides it for one page.
      assert.match((await reader.web.get('/cart?lang=it')).text, /<h1>Il tuo carrello<\/h1>/);
    });

    it('keeps private pages private', async () => {
      const anon = new WebClient(server);
      for (const path of ['/cart', '/balance']) {
        const res = await anon.get(path);
        assert.equal(res.status, 303);
        assert.equal(res.location, `/login?next=${encodeURIComponent(path)}`);
      }
    });
  });
}

describe('the balance page in production', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({
      config: { mode: 'production', publicBaseUrl: 'http://api.cardbazaar.test', secretKey: 'x'.repeat(40) },
    });
  });
  after(() => server.close());

  it('says how the operator credits money, and gives no test money', async () => {
    const client = await webTrader(server, { name: 'prod', balanceCents: 500 });
    const page = await client.web.get('/balance');
    assert.equal(page.status, 200);
    assert.match(textOf(page.text), /cardbazaar user fund/);
    assert.ok(!page.text.includes('/balance/test-money'));
    const res = await client.web.post('/balance/test-money');
    assert.equal(res.status, 403);
    assert.equal((await balances(server, client.user.idUser)).moneyBalance, 500);
  });
});

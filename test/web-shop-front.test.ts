import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createApp } from '../src/auth/apps.js';
import { hashPassword } from '../src/auth/passwords.js';
import { setPasswordHash } from '../src/store/users.js';
import { createProduct, type ProductFixture } from './fixtures.js';
import { DIALECTS, startTestServer, type TestServer } from './helpers.js';
import { balances, createTrader, offer, type Trader } from './trading-helpers.js';
import { textOf, WebClient } from './web-client.js';

/**
 * The shop front (issue 35) through HTTP: pictures and "from" prices in the lists, the product page
 * leading with its picture and lowest price, and **Buy and pay**: the checkout and each order paid
 * in one step when the balances cover the total (the API then lists the orders as paid), or what is
 * missing and nothing done when they do not.
 */

const PASSWORD = 'shop front password';
let passwordHash = '';

async function webTrader(server: TestServer, options: Parameters<typeof createTrader>[1] = {}) {
  const trader = await createTrader(server, options);
  passwordHash ||= await hashPassword(PASSWORD);
  await setPasswordHash(server.services.database.db, trader.user.idUser, passwordHash);
  const web = new WebClient(server);
  const signed = await web.signIn(trader.user.username, PASSWORD);
  assert.equal(signed.status, 303, signed.text);
  return { ...trader, web };
}

const images = (html: string) => [...html.matchAll(/<img [^>]*src="([^"]+)"[^>]*alt="([^"]*)"/g)];

for (const dialect of DIALECTS) {
  describe(`the shop front (${dialect})`, () => {
    let server: TestServer;
    let seller: Trader;
    let card: ProductFixture;

    before(async () => {
      server = await startTestServer({ dialect });
      seller = await createTrader(server, { name: 'frontseller', country: 'D' });
      card = await createProduct(server, { enName: 'Glimmering Frontdrake', rarity: 'Mythic' });
      await offer(server, seller.user, { product: card, price: 1_250, count: 3 });
      await offer(server, seller.user, { product: card, price: 990, count: 2, condition: 'EX' });
    });
    after(() => server.close());

    it('shows pictures, "from" prices and copies in offers; every picture answers with an image', async () => {
      const anon = new WebClient(server);
      const found = await anon.get('/cards?search=Frontdrake');
      assert.equal(found.status, 200);
      const pics = images(found.text).filter(([, src]) => src!.startsWith('/img/'));
      assert.equal(pics.length, 1);
      assert.equal(pics[0]![2], 'Glimmering Frontdrake');
      assert.match(textOf(found.text), /from €9\.90/);

      const product = await anon.get(`/products/${card.idProduct}`);
      assert.equal(product.status, 200);
      assert.match(
        product.text,
        /<img class="large" src="\/img\/[^"]+" alt="Glimmering Frontdrake" width="220"/,
      );
      assert.match(product.text, /data-price="lowest">€9\.90</);
      assert.match(textOf(product.text), /5 copies in 2 offers/);
      // The header's search box on every page.
      assert.match(
        product.text,
        /<form class="site-search" method="get" action="\/cards" role="search" aria-label="Search cards">/,
      );
      for (const [, src] of images(product.text)) {
        const res = await server.app.inject({ method: 'GET', url: src! });
        assert.equal(res.statusCode, 200, src);
        assert.match(String(res.headers['content-type']), /^image\//, src);
      }
    });

    it('the lowest price is the cheapest copy on offer: not a seller on vacation, not an empty offer', async () => {
      const shelf = await createProduct(server, { enName: 'Vacationing Frontmoth' });
      const empty = await createProduct(server, { enName: 'Unoffered Frontmoth' });
      const away = await createTrader(server, { name: 'frontaway', country: 'D' });
      await offer(server, seller.user, { product: shelf, price: 640 });
      await offer(server, away.user, { product: shelf, price: 120 });
      await offer(server, away.user, { product: empty, price: 90 });
      await server.services.database.db
        .updateTable('users')
        .set({ onVacation: 1 })
        .where('idUser', '=', away.user.idUser)
        .execute();
      const anon = new WebClient(server);
      assert.match((await anon.get(`/products/${shelf.idProduct}`)).text, /data-price="lowest">€6\.40</);
      const none = await anon.get(`/products/${empty.idProduct}`);
      assert.doesNotMatch(none.text, /data-price="lowest"/);
      assert.match(textOf(none.text), /No copies on offer yet/);
      const found = textOf((await anon.get('/cards?search=Frontmoth')).text);
      assert.match(found, /from €6\.40/);
      assert.doesNotMatch(found, /from €0\.90|from €1\.20/);
    });

    it('Buy and pay: one step when the balance covers the total; the API lists the orders paid', async () => {
      const buyer = await webTrader(server, { name: 'frontpayer', country: 'FR', balanceCents: 10_000 });
      const dear = await offer(server, seller.user, { product: card, price: 2_000 });
      await buyer.web.get(`/products/${card.idProduct}`);
      const added = await buyer.web.post(`/products/${card.idProduct}/cart`, {
        idArticle: String(dear.idArticle),
        count: '1',
      });
      assert.equal(added.status, 303);
      const cart = await buyer.web.get('/cart');
      assert.match(cart.text, /id="buy-and-pay">Buy and pay €/);
      // The cart line has the card's picture; emptying asks first.
      assert.ok(images(cart.text).some(([, , alt]) => alt === 'Glimmering Frontdrake'));
      assert.match(cart.text, /<details class="confirm" id="empty-cart">/);
      const total = Number(/id="grand-total"><strong>€([\d.]+)</.exec(cart.text)![1]) * 100;

      const done = await buyer.web.post('/cart/buy-and-pay');
      assert.equal(done.status, 303, done.text);
      assert.equal(done.location, '/orders?actor=buyer&state=paid');
      const paid = await buyer.api.get('/orders/buyer/paid', { json: true });
      const orders = (paid.json as { order: { idOrder: number; totalValue: number }[] }).order;
      assert.equal(orders.length, 1);
      assert.equal(Math.round(orders[0]!.totalValue * 100), total);
      const bought = await buyer.api.get('/orders/buyer/bought', { json: true });
      assert.equal(bought.status, 204);
      assert.equal((await balances(server, buyer.user.idUser)).moneyBalance, 10_000 - total);
      const page = await buyer.web.get('/orders?actor=buyer&state=paid');
      assert.match(textOf(page.text), /Bought and paid: 1 order\./);
    });

    it('Buy and pay with too little balance: says what is missing, links to the balance, changes nothing', async () => {
      const buyer = await webTrader(server, { name: 'frontshort', country: 'FR', balanceCents: 500 });
      const dear = await offer(server, seller.user, { product: card, price: 3_000 });
      await buyer.web.get(`/products/${card.idProduct}`);
      await buyer.web.post(`/products/${card.idProduct}/cart`, {
        idArticle: String(dear.idArticle),
        count: '1',
      });
      const cart = await buyer.web.get('/cart');
      assert.doesNotMatch(cart.text, /id="buy-and-pay"/);
      assert.match(
        textOf(cart.text),
        /Your balance \(€5\.00\) is €[\d.]+ short of the total €[\d.]+\. Top up your balance/,
      );
      assert.match(cart.text, /<a href="\/balance">/);

      // Posting anyway (an old page): refused, no order, the copy still in the cart.
      const refused = await buyer.web.post('/cart/buy-and-pay');
      assert.equal(refused.status, 400);
      assert.match(refused.text, /id="checkout-error">Your balance \(€5\.00\) is €/);
      assert.equal((await buyer.api.get('/orders/buyer/bought', { json: true })).status, 204);
      assert.equal((await buyer.api.get('/orders/buyer/paid', { json: true })).status, 204);
      assert.ok((await buyer.web.get('/cart')).text.includes(`id="line-${dear.idArticle}"`));
      assert.equal((await balances(server, buyer.user.idUser)).moneyBalance, 500);
    });

    it('links order numbers of the balance page to their orders', async () => {
      const buyer = await webTrader(server, { name: 'frontlink', country: 'FR', balanceCents: 0 });
      const cheap = await offer(server, seller.user, { product: card, price: 100 });
      await buyer.web.get(`/products/${card.idProduct}`);
      await buyer.web.post(`/products/${card.idProduct}/cart`, {
        idArticle: String(cheap.idArticle),
        count: '1',
      });
      await buyer.web.get('/cart');
      assert.equal((await buyer.web.post('/cart/checkout')).status, 303);
      const bought = await buyer.api.get('/orders/buyer/bought', { json: true });
      const idOrder = (bought.json as { order: { idOrder: number }[] }).order[0]!.idOrder;
      const page = await buyer.web.get('/balance');
      assert.ok(page.text.includes(`<a href="/orders/${idOrder}">#${idOrder}</a>`));
    });

    it('names the app on the third-party sign-in, shows the signed-in header on a 404, counts the order tabs, folds secrets', async () => {
      const issued = await createApp(server.services, {
        idUser: seller.user.idUser,
        kind: 'thirdParty',
        name: 'Deck <Builder>',
        callbackUrl: 'https://deck.example/cb',
      });
      const anon = new WebClient(server);
      const login = await anon.get(`/login?next=${encodeURIComponent(`/authorize/${issued.appToken}`)}`);
      assert.match(login.text, /id="signing-in-for">Sign in to let Deck &lt;Builder&gt; use your account</);
      assert.doesNotMatch((await anon.get('/login?next=/cart')).text, /signing-in-for/);

      const buyer = await webTrader(server, { name: 'fronttabs', country: 'FR', balanceCents: 10_000 });
      const copy = await offer(server, seller.user, { product: card, price: 150 });
      await buyer.web.get(`/products/${card.idProduct}`);
      await buyer.web.post(`/products/${card.idProduct}/cart`, {
        idArticle: String(copy.idArticle),
        count: '1',
      });
      await buyer.web.get('/cart');
      assert.equal((await buyer.web.post('/cart/buy-and-pay')).status, 303);
      const tabs = await buyer.web.get('/orders?actor=buyer&state=paid');
      assert.match(tabs.text, /aria-current="page">Paid \(1\)</);
      assert.match(tabs.text, />Bought \(unpaid\) \(0\)</);

      const missing = await buyer.web.get('/no-such-page');
      assert.equal(missing.status, 404);
      assert.match(missing.text, /<header class="top signed-in">/);
      assert.ok(missing.text.includes(`<span class="who">${buyer.user.username}</span>`));
      assert.doesNotMatch((await new WebClient(server).get('/no-such-page')).text, /signed-in/);

      const profile = await buyer.web.get('/profile');
      assert.match(profile.text, /<a href="#api-credentials">API credentials<\/a>/);
      assert.match(
        profile.text,
        /<details class="reveal"><summary>Show<\/summary><code class="secret" id="cred-\d+-appSecret"/,
      );
    });

    it('opens the front page with the games and what is moving: newest listings, sales, trend changes', async () => {
      const mover = await createProduct(server, { enName: 'Trending Frontwyrm' });
      await server.services.database.db
        .insertInto('priceGuides')
        .values({ idProduct: mover.idProduct, trend: 900, avg30: 300, updatedAt: 0 })
        .execute();
      const listed = await offer(server, seller.user, { product: mover, price: 777 });
      assert.ok(listed.idArticle > 0);
      const home = await new WebClient(server).get('/');
      assert.equal(home.status, 200);
      const section = (id: string) =>
        new RegExp(`<section class="card" id="${id}">([\\s\\S]*?)</section>`).exec(home.text)?.[1] ?? '';
      assert.match(section('newest'), /alt="Trending Frontwyrm"/);
      assert.match(textOf(section('newest')), /€7\.77/);
      assert.match(
        textOf(section('movers')),
        /Trending Frontwyrm .*€9\.00 \+200 % against the 30-day average/,
      );
      // A paid order of the earlier tests is a sale.
      assert.match(section('sold'), /alt="Glimmering Frontdrake"/);
      assert.match(section('games'), /href="\/games\/\d+"/);
      assert.match(home.text, /<section class="card" id="api">/);
    });
  });
}

import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { createApp } from '../../src/auth/apps.js';
import { hashPassword } from '../../src/auth/passwords.js';
import { createUser } from '../../src/domain/users.js';
import type { User } from '../../src/store/schema.js';
import { setPasswordHash } from '../../src/store/users.js';
import { createProduct } from '../fixtures.js';
import {
  describeUnless,
  signedHeader,
  type TestCredentials,
  type TestServer,
  xmlRequest,
} from '../helpers.js';
import {
  type BrowserServer,
  type BrowserSession,
  launchBrowser,
  NO_BROWSER,
  startBrowserServer,
} from './harness.js';

/**
 * The buying story of issue 17 in Chromium: two sellers list cards through the signed API (a
 * stock tool), a buyer signs in, finds the card with the search box, filters its offers, puts two
 * sellers' offers in the cart, sets the shipping address, checks out and pays. After each step the
 * same state is read through the signed API and must agree. Every page is screenshotted at desktop
 * and phone size (`test/browser/screenshots/shop-*`).
 */

const PASSWORD = 'shop browser password';

async function signedFetch(
  server: BrowserServer,
  cred: TestCredentials,
  method: string,
  path: string,
  body?: string,
) {
  const url = `${server.url}/ws/v2.0/output.json${path}`;
  const res = await fetch(url, {
    method,
    headers: {
      authorization: signedHeader(cred, method, url),
      ...(body ? { 'content-type': 'application/xml' } : {}),
    },
    body,
  });

  return { status: res.status, json: (await res.json().catch(() => undefined)) as any };
}

async function person(
  server: BrowserServer,
  username: string,
  country: string,
  balanceCents: number,
): Promise<{ user: User; cred: TestCredentials }> {
  const user = await createUser(server.services, {
    username,
    country,
    accountType: 'private',
    balanceCents,
    firstName: username,
    lastName: 'Tester',
    street: 'Somewhere 1',
    zip: '12345',
    city: 'Town',
  });
  await setPasswordHash(server.services.database.db, user.idUser, await hashPassword(PASSWORD));
  const issued = await createApp(server.services, { idUser: user.idUser, kind: 'dedicated' });
  return {
    user,
    cred: {
      idApp: issued.app.idApp,
      kind: 'dedicated',
      appToken: issued.appToken,
      appSecret: issued.appSecret,
      accessToken: issued.accessToken!.token,
      accessTokenSecret: issued.accessToken!.secret,
      idUser: user.idUser,
    },
  };
}

const stockXml = (idProduct: number, price: string, condition: string, count = 1) =>
  `<article><idProduct>${idProduct}</idProduct><idLanguage>1</idLanguage><comments>from the tool</comments><count>${count}</count><price>${price}</price><condition>${condition}</condition><isFoil>false</isFoil><isSigned>false</isSigned><isAltered>false</isAltered><isPlayset>false</isPlayset></article>`;

describeUnless(NO_BROWSER, 'the shop in Chromium', () => {
  let server: BrowserServer;
  let chrome: BrowserSession;
  before(async () => {
    server = await startBrowserServer();
    chrome = await launchBrowser('shop');
  });
  after(async () => {
    await chrome?.close();
    await server?.close();
  });

  it('a buyer finds a card, filters, buys from two sellers, sets the address, checks out and pays; the API agrees', async () => {
    const asTest = server as unknown as TestServer;
    const bolt = await createProduct(asTest, {
      enName: 'Lightning Bolt',
      names: { 1: 'Lightning Bolt', 2: 'Foudre', 3: 'Blitzschlag' },
      rarity: 'Common',
    });
    await createProduct(asTest, { enName: 'Lightning Helix', rarity: 'Uncommon' });
    const erika = await person(server, 'erika', 'D', 0);
    const giulia = await person(server, 'giulia', 'IT', 0);
    const jean = await person(server, 'jean', 'FR', 5_000);

    // The sellers' stock tools list through the signed API; the pages show it.
    const listed = await signedFetch(
      server,
      erika.cred,
      'POST',
      '/stock',
      xmlRequest(
        stockXml(bolt.idProduct, '1.20', 'NM', 3) +
          stockXml(bolt.idProduct, '0.30', 'PL') +
          stockXml(bolt.idProduct, '0.90', 'EX'),
      ),
    );
    assert.equal(listed.status, 200, JSON.stringify(listed.json));
    const erikaNm = listed.json.inserted[0].idArticle.idArticle as number;
    const giuliaListed = await signedFetch(
      server,
      giulia.cred,
      'POST',
      '/stock',
      xmlRequest(stockXml(bolt.idProduct, '2.50', 'MT')),
    );
    const giuliaMt = giuliaListed.json.inserted[0].idArticle.idArticle as number;

    const page = await chrome.newPage('desktop');
    await page.goto(`${server.url}/login?next=/cards`);
    await page.getByLabel('Username', { exact: true }).fill('jean');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${server.url}/cards`);

    // Search.
    await page.getByLabel('Card name').fill('Lightning');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/\/cards\?search=Lightning/);
    await page.getByRole('link', { name: 'Lightning Bolt' }).click();
    await page.waitForURL(`${server.url}/products/${bolt.idProduct}`);
    assert.equal(await page.locator('h1').innerText(), 'Lightning Bolt');
    assert.equal(await page.locator('table.offers tbody tr').count(), 4);

    // Filter: EX or better drops the played copy; the API's answer to the same filter agrees.
    await page.getByLabel('Minimum condition').selectOption('EX');
    await page.getByRole('button', { name: 'Apply the filters' }).click();
    await page.waitForURL(/minCondition=EX/);
    const shownIds = await page
      .locator('table.offers tbody tr')
      .evaluateAll((rows) => rows.map((r) => Number(r.id.replace('offer-', ''))));
    const apiFiltered = await signedFetch(
      server,
      jean.cred,
      'GET',
      `/articles/${bolt.idProduct}?minCondition=EX`,
    );
    assert.deepEqual(
      shownIds,
      apiFiltered.json.article.map((a: { idArticle: number }) => a.idArticle),
    );
    assert.equal(shownIds.length, 3);

    // Two of Erika's, one of Giulia's.
    await page.locator(`#offer-${erikaNm} input[name=count]`).fill('2');
    await page.locator(`#offer-${erikaNm}`).getByRole('button', { name: 'Add to cart' }).click();
    await page.waitForURL(/minCondition=EX/);
    assert.match(await page.locator('.flash').innerText(), /2 added to your cart/);
    await page.locator(`#offer-${giuliaMt}`).getByRole('button', { name: 'Add to cart' }).click();
    await page.waitForURL(/minCondition=EX/);
    const cart = await signedFetch(server, jean.cred, 'GET', '/shoppingcart');
    assert.equal(cart.json.shoppingCart.length, 2);
    assert.deepEqual(
      cart.json.shoppingCart.map((r: { seller: { username: string } }) => r.seller.username).sort(),
      ['erika', 'giulia'],
    );

    // The cart: address, then checkout.
    await page.getByRole('link', { name: 'Cart' }).click();
    await page.waitForURL(`${server.url}/cart`);
    assert.equal(await page.locator('section.reservation').count(), 2);
    await page.getByLabel('Name', { exact: true }).fill('Jean Dupont');
    await page.getByLabel('Street').fill('5 rue de la Paix');
    await page.getByLabel('Postcode').fill('75002');
    await page.getByLabel('City').fill('Paris');
    await page.getByLabel('Country').fill('FR');
    await page.getByRole('button', { name: 'Save the address' }).click();
    await page.waitForURL(/\/cart#address$/);
    const withAddress = await signedFetch(server, jean.cred, 'GET', '/shoppingcart');
    assert.equal(withAddress.json.shippingAddress.name, 'Jean Dupont');
    assert.equal(withAddress.json.shippingAddress.street, '5 rue de la Paix');
    const expectedTotal = withAddress.json.shoppingCart.reduce(
      (s: number, r: { totalValue: number }) => s + Math.round(r.totalValue * 100),
      0,
    );
    assert.equal(
      await page.locator('#grand-total').innerText(),
      new Intl.NumberFormat('en-GB', { style: 'currency', currency: 'EUR' }).format(expectedTotal / 100),
    );

    // Phone-sized pictures of the same pages, before the cart is checked out.
    const phone = await chrome.newPage('phone', { width: 390, height: 844 });
    await phone.goto(`${server.url}/login?next=/cart`);
    await phone.getByLabel('Username', { exact: true }).fill('jean');
    await phone.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await phone.getByRole('button', { name: 'Sign in' }).click();
    await phone.waitForURL(`${server.url}/cart`);
    await phone.goto(`${server.url}/products/${bolt.idProduct}`);
    await phone.goto(`${server.url}/cards?search=Lightning`);
    await phone.goto(`${server.url}/users/erika`);

    await page.getByRole('button', { name: 'Buy now' }).click();
    await page.waitForURL(/\/balance#unpaid$/);
    const bought = await signedFetch(server, jean.cred, 'GET', '/orders/buyer/bought');
    assert.equal(bought.json.order.length, 2);
    const ids = bought.json.order.map((o: { idOrder: number }) => o.idOrder) as number[];
    for (const id of ids) assert.equal(await page.locator(`#order-${id}`).count(), 1);

    // Pay both.
    for (const id of ids) {
      await page.locator(`#order-${id}`).getByRole('button', { name: 'Pay' }).click();
      await page.waitForURL(`${server.url}/balance`);
      assert.match(await page.locator('.flash').innerText(), new RegExp(`Order #${id} is paid`));
    }
    await phone.goto(`${server.url}/balance`);

    // Balances through the API: the buyer paid exactly the cart's total, the orders are paid, and
    // each seller sees theirs.
    const account = await signedFetch(server, jean.cred, 'GET', '/account');
    assert.equal(Math.round(account.json.account.moneyDetails.moneyBalance * 100), 5_000 - expectedTotal);
    assert.equal(account.json.account.moneyDetails.unpaidAmount, 0);
    assert.equal(
      await page.locator('[data-money=moneyBalance]').innerText(),
      new Intl.NumberFormat('en-GB', { style: 'currency', currency: 'EUR' }).format(
        (5_000 - expectedTotal) / 100,
      ),
    );
    const paid = await signedFetch(server, jean.cred, 'GET', '/orders/buyer/paid');
    assert.equal(paid.json.order.length, 2);
    for (const seller of [erika, giulia]) {
      const theirs = await signedFetch(server, seller.cred, 'GET', '/orders/seller/paid');
      assert.equal(theirs.json.order.length, 1);
      assert.equal(theirs.json.order[0].buyer.username, 'jean');
    }
    // The stock the sellers' tools read moved with the sale.
    const stock = await signedFetch(server, erika.cred, 'GET', '/stock');
    const nm = stock.json.article.find((a: { idArticle: number }) => a.idArticle === erikaNm);
    assert.equal(nm.count, 1);
  });
});

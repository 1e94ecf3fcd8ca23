import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createProduct } from '../fixtures.js';
import { describeUnless, type TestServer, xmlRequest } from '../helpers.js';
import {
  NO_BROWSER,
  PHONE,
  person,
  sellerWithStock,
  signedFetch,
  signIn,
  stockXml,
  useBrowser,
} from './harness.js';

/**
 * The buying story of issue 17 in Chromium: two sellers list cards through the signed API (a
 * stock tool), a buyer signs in, finds the card with the search box, filters its offers, puts two
 * sellers' offers in the cart, sets the shipping address, checks out and pays. After each step the
 * same state is read through the signed API and must agree. Every page is screenshotted at desktop
 * and phone size (`test/browser/screenshots/shop-*`).
 */

describeUnless(NO_BROWSER, 'the shop in Chromium', () => {
  const ctx = useBrowser('shop');

  it('a buyer finds a card, filters, buys from two sellers, sets the address, checks out and pays; the API agrees', async () => {
    const { server, chrome } = ctx;
    const asTest = server as unknown as TestServer;
    const bolt = await createProduct(asTest, {
      enName: 'Lightning Bolt',
      names: { 1: 'Lightning Bolt', 2: 'Foudre', 3: 'Blitzschlag' },
      rarity: 'Common',
    });
    await createProduct(asTest, { enName: 'Lightning Helix', rarity: 'Uncommon' });
    // The sellers' stock tools list through the signed API; the pages show it.
    const erika = await sellerWithStock(server, 'erika', [
      { idProduct: bolt.idProduct, price: '1.20', condition: 'NM', count: 3 },
      { idProduct: bolt.idProduct, price: '0.30', condition: 'PL' },
      { idProduct: bolt.idProduct, price: '0.90', condition: 'EX' },
    ]);
    const erikaNm = erika.idArticles[0]!;
    const giulia = await person(server, 'giulia', { country: 'IT' });
    const jean = await person(server, 'jean', { country: 'FR', balanceCents: 5_000 });
    const giuliaListed = await signedFetch(
      server,
      giulia.cred,
      'POST',
      '/stock',
      xmlRequest(stockXml(bolt.idProduct, '2.50', 'MT')),
    );
    const giuliaMt = giuliaListed.json.inserted[0].idArticle.idArticle as number;

    const page = await chrome.newPage('desktop');
    await signIn(page, server, 'jean', '/cards');

    // Search.
    await page.getByLabel('Card name').fill('Lightning');
    await page.getByRole('main').getByRole('button', { name: 'Search' }).click();
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
    await page.getByLabel('Country').selectOption('FR');
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
    const phone = await chrome.newPage('phone', PHONE);
    await signIn(phone, server, 'jean', '/cart');
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

import assert from 'node:assert/strict';
import { it } from 'node:test';
import { payOrder } from '../../src/domain/orders.js';
import { createProduct } from '../fixtures.js';
import { describeUnless, type TestServer } from '../helpers.js';
import { NO_BROWSER, PHONE, person, signedFetch, signIn, useBrowser } from './harness.js';

/**
 * The selling story in Chromium: a seller lists three cards on the stock pages; a buyer's order of
 * one is paid (as the operator's `order pay` does); the seller sees it paid and sends it with a
 * tracking number; the buyer confirms reception and evaluates; they exchange messages; a wants-list
 * item with FROM matches the offer. After each step the signed API must agree. Desktop and phone
 * screenshots land in test/browser/screenshots/.
 */

describeUnless(NO_BROWSER, 'the trading pages in Chromium', () => {
  const ctx = useBrowser('trade');

  it('lists, sells, sends, receives, evaluates, talks and matches a wants list', async () => {
    const { server, chrome } = ctx;
    const asTest = server as unknown as TestServer;
    const seller = await person(server, 'storyseller');
    const buyer = await person(server, 'storybuyer', { balanceCents: 5000 });
    const names = ['Glimmer Owl', 'Glimmer Fox', 'Glimmer Bear'];
    const products = [];
    for (const enName of names) products.push(await createProduct(asTest, { enName }));

    // The seller lists three cards, finding each by name.
    const sp = await chrome.newPage('seller');
    await signIn(sp, server, 'storyseller', '/stock');
    for (const [i, name] of names.entries()) {
      await sp.goto(`${server.url}/stock/new`);
      await sp.getByLabel('Card or product name').fill(name);
      await sp.getByRole('main').getByRole('button', { name: 'Search' }).click();
      await sp.getByRole('link', { name }).click();
      await sp.getByLabel('Copies').fill('2');
      await sp.getByLabel('Price (€)').fill(`${i + 1}.50`);
      await sp.getByRole('button', { name: 'Put on sale' }).click();
      await sp.waitForURL(/\/stock\/\d+$/);
    }
    const stock = await signedFetch(server, seller.cred, 'GET', '/stock');
    assert.deepEqual(stock.json.article.map((a: any) => [a.product.enName, a.price, a.count]).sort(), [
      ['Glimmer Bear', 3.5, 2],
      ['Glimmer Fox', 2.5, 2],
      ['Glimmer Owl', 1.5, 2],
    ]);
    await sp.goto(`${server.url}/stock`);
    assert.equal(await sp.locator('table.stock tbody tr').count(), 3);

    // The buyer wants the owl: a wants-list item with FROM takes the offer's price.
    const bp = await chrome.newPage('buyer');
    await signIn(bp, server, 'storybuyer', '/wants');
    await bp.getByLabel('Name', { exact: true }).fill('Owls');
    await bp.getByRole('button', { name: 'Create the list' }).click();
    await bp.waitForURL(/\/wants\/\d+$/);
    const idWantslist = Number(/\/wants\/(\d+)$/.exec(bp.url())![1]);
    await bp.getByLabel('Card or product name').fill('Glimmer Owl');
    await bp.getByRole('main').getByRole('button', { name: 'Search' }).click();
    await bp.locator(`a[href*="idProduct=${products[0]!.idProduct}"]`).click();
    await bp.locator('#add-item').getByLabel('Wish price').fill('FROM');
    await bp.getByRole('button', { name: 'Add to the list' }).click();
    await bp.waitForURL(`${server.url}/wants/${idWantslist}`);
    assert.equal(await bp.locator('[data-wish-price]').getAttribute('data-wish-price'), '150');
    const wants = await signedFetch(server, buyer.cred, 'GET', `/wantslist/${idWantslist}`);
    assert.equal(wants.json.wantslist.item[0].wishPrice, 1.5);
    await bp.getByRole('link', { name: 'Matching offers' }).click();
    assert.match(await bp.locator('table.offers').innerText(), /storyseller/);

    // The buyer buys one owl (the API) and the order is paid (as `order pay` does).
    const owl = stock.json.article.find((a: any) => a.product.enName === 'Glimmer Owl');
    const added = await signedFetch(
      server,
      buyer.cred,
      'PUT',
      '/shoppingcart',
      `<?xml version="1.0" encoding="UTF-8"?><request><action>add</action><article><idArticle>${owl.idArticle}</idArticle><count>1</count></article></request>`,
    );
    assert.equal(added.status, 200);
    const checkout = await signedFetch(server, buyer.cred, 'PUT', '/shoppingcart/checkout');
    const idOrder = checkout.json.order[0].idOrder as number;
    await payOrder(server.services, idOrder);

    // The seller sees the paid order and sends it with a tracking number.
    await sp.goto(`${server.url}/orders?actor=seller&state=paid`);
    await sp.getByRole('link', { name: `#${idOrder}` }).click();
    await sp.waitForURL(`${server.url}/orders/${idOrder}`);
    await sp.locator('#action-send').getByLabel('Tracking number').fill('LX123456789DE');
    await sp.getByRole('button', { name: 'Mark as sent' }).click();
    await sp.waitForURL(`${server.url}/orders/${idOrder}`);
    assert.equal(await sp.locator('[data-state]').getAttribute('data-state'), 'sent');
    let api = await signedFetch(server, buyer.cred, 'GET', `/order/${idOrder}`);
    assert.equal(api.json.order.state.state, 'sent');
    assert.equal(api.json.order.trackingNumber, 'LX123456789DE');
    // A typo in the number: the seller corrects it on the sent order's page.
    await sp.locator('#action-tracking').getByLabel('Tracking number').fill('LX123456780DE');
    await sp.getByRole('button', { name: 'Change the tracking number' }).click();
    await sp.waitForURL(`${server.url}/orders/${idOrder}`);
    assert.match(await sp.locator('.flash').innerText(), /The tracking number is changed/);
    api = await signedFetch(server, buyer.cred, 'GET', `/order/${idOrder}`);
    assert.equal(api.json.order.trackingNumber, 'LX123456780DE');

    // The buyer confirms reception and evaluates.
    await bp.goto(`${server.url}/orders?actor=buyer&state=sent`);
    await bp.getByRole('link', { name: `#${idOrder}` }).click();
    await bp.getByRole('button', { name: 'Confirm reception' }).click();
    await bp.waitForURL(`${server.url}/orders/${idOrder}`);
    api = await signedFetch(server, seller.cred, 'GET', `/order/${idOrder}`);
    assert.equal(api.json.order.state.state, 'received');
    await bp.locator('#action-evaluate').getByLabel('Comment').fill('Quick and well packed.');
    await bp.getByRole('button', { name: 'Evaluate the seller' }).click();
    await bp.waitForURL(`${server.url}/orders/${idOrder}`);
    api = await signedFetch(server, seller.cred, 'GET', `/order/${idOrder}`);
    assert.equal(api.json.order.state.state, 'evaluated');
    assert.equal(api.json.order.evaluation.comment, 'Quick and well packed.');
    const account = await signedFetch(server, seller.cred, 'GET', '/account');
    assert.equal(account.json.account.moneyDetails.moneyBalance, api.json.order.totalValue);

    // A message thread: the buyer writes from the order page, the seller sees it unread and answers.
    await bp.getByRole('link', { name: 'write a message' }).click();
    await bp.getByLabel('Your message').fill('Thank you for the owl!');
    await bp.getByRole('button', { name: 'Send' }).click();
    await bp.waitForURL(/\/messages\/\d+/);
    await sp.goto(`${server.url}/messages`);
    assert.equal(await sp.locator('header nav.wide [data-unread]').getAttribute('data-unread'), '1');
    await sp.getByRole('link', { name: 'storybuyer' }).click();
    assert.match(await sp.locator('ol.messages').innerText(), /Thank you for the owl!/);
    await sp.getByLabel('Your message').fill('Enjoy it.');
    await sp.getByRole('button', { name: 'Send' }).click();
    await sp.waitForURL(/\/messages\/\d+/);
    const thread = await signedFetch(server, buyer.cred, 'GET', `/account/messages/${seller.user.idUser}`);
    assert.deepEqual(
      thread.json.message.map((m: any) => m.text),
      ['Thank you for the owl!', 'Enjoy it.'],
    );

    // The same pages on a phone, for the screenshots.
    const phone = await chrome.newPage('phone', PHONE);
    await signIn(phone, server, 'storyseller', '/stock');
    for (const path of [
      '/orders?actor=seller&state=received',
      `/orders/${idOrder}`,
      '/stock/new',
      '/stock/file',
      '/messages',
      `/messages/${buyer.user.idUser}`,
    ]) {
      await phone.goto(`${server.url}${path}`);
    }
    const buyerPhone = await chrome.newPage('buyer-phone', PHONE);
    await signIn(buyerPhone, server, 'storybuyer', '/wants');
    await buyerPhone.goto(`${server.url}/wants/${idWantslist}`);
    await buyerPhone.goto(`${server.url}/wants/${idWantslist}/items/${wants.json.wantslist.item[0].idWant}`);
    await bp.goto(`${server.url}/stock/file`);
  });
});

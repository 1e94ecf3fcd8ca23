import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { it } from 'node:test';
import type { Page } from 'playwright-core';
import { createProduct } from '../fixtures.js';
import { describeUnless, type TestServer } from '../helpers.js';
import {
  DESKTOP,
  NO_BROWSER,
  PHONE,
  person,
  sellerWithStock,
  signedFetch,
  signIn,
  useBrowser,
} from './harness.js';

/**
 * The shop front in Chromium (issue 35), at desktop and phone size: home → the header's search →
 * results with pictures and "from" prices → the product page with its picture, lowest price and
 * compact offers → Add to cart → **Buy and pay** in one step with a covering balance → the order
 * paid, as `GET /orders/buyer/paid` shows. On every page: every picture answers 200 with an image
 * type, and axe-core finds nothing critical or serious (nor an empty table header).
 */

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** axe-core over the page as it is: the violations that fail the tour. */
async function accessibilityProblems(page: Page, within?: string): Promise<string[]> {
  // Evaluated through the debugging protocol, which the page's Content-Security-Policy does not
  // govern: the page itself still loads nothing but its own scripts.
  await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(async (selector) => {
    const w = globalThis as any;
    const context = selector ? w.document.querySelector(selector) : w.document;
    const result = await w.axe.run(context, { resultTypes: ['violations'] });
    // axe ran its rules (a page where it found nothing still passed some).
    if (result.passes.length === 0) throw new Error('axe-core checked nothing');
    return result.violations;
  }, within)) as AxeViolation[];
  if (process.env.AXE_ALL) console.log(page.url(), JSON.stringify(violations.map((v) => [v.id, v.impact])));
  return violations
    .filter((v) => v.impact === 'critical' || v.impact === 'serious' || v.id === 'empty-table-header')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** Every `<img>` of the page answers 200 with an image type. */
async function picturesAnswer(page: Page): Promise<string[]> {
  const sources = (await page.evaluate(() =>
    [...(globalThis as any).document.querySelectorAll('img')].map((i: any) => i.currentSrc || i.src),
  )) as string[];
  const problems: string[] = [];
  for (const src of new Set(sources)) {
    const res = await fetch(src);
    const type = res.headers.get('content-type') ?? '';
    await res.arrayBuffer();
    if (res.status !== 200 || !type.startsWith('image/')) problems.push(`${src}: ${res.status} ${type}`);
  }
  return problems;
}

describeUnless(NO_BROWSER, 'the shop front in a browser', () => {
  const ctx = useBrowser('shop-front');

  for (const [size, window] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    it(`walks from the front page to a paid order with Buy and pay (${size})`, async () => {
      const { server, chrome } = ctx;
      const asTest = server as unknown as TestServer;
      const name = `Emberwing Drake ${size}`;
      const card = await createProduct(asTest, { enName: name, rarity: 'Mythic' });
      await server.services.database.db
        .insertInto('priceGuides')
        .values({ idProduct: card.idProduct, low: 250, avg: 420, trend: 399, avg30: 300, updatedAt: 0 })
        .execute();
      const seller = await sellerWithStock(server, `front-seller-${size}`, [
        { idProduct: card.idProduct, price: '2.50', condition: 'NM', count: 3 },
        { idProduct: card.idProduct, price: '3.10', condition: 'EX', count: 2 },
        { idProduct: card.idProduct, price: '4.00', condition: 'GD', count: 1 },
      ]);
      assert.equal(seller.idArticles.length, 3);
      const buyer = await person(server, `front-buyer-${size}`, { balanceCents: 10_000 });
      const page = await chrome.newPage(`front-${size}`, window);
      const refused: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') refused.push(m.text());
      });
      const check = async (where: string) => {
        assert.deepEqual(await accessibilityProblems(page), [], `axe on ${where}`);
        assert.deepEqual(await picturesAnswer(page), [], `pictures on ${where}`);
      };

      await signIn(page, server, buyer.user.username, '/');
      // The front page: a search box, the games, what is moving, with pictures and prices.
      await page.locator('#newest ul.shelf img').first().waitFor();
      assert.ok((await page.locator('#games a').count()) > 0);
      await check('the front page');

      // The header's search box, on every page (on a phone: the line under the brand).
      const search = page.locator('header form.site-search');
      assert.equal(await search.isVisible(), true);
      const box = await page.locator('header').boundingBox();
      if (size === 'phone') assert.ok(box!.height < 110, `the phone header is ${box!.height} px tall`);
      await search.locator('input[name=search]').fill('Emberwing');
      await search.getByRole('button').click();
      await page.waitForURL(/\/cards\?search=Emberwing/);
      const result = page.locator('#results tbody tr', { hasText: name });
      await result.waitFor();
      assert.equal(await result.locator(`img[alt="${name}"]`).count(), 1);
      assert.match(await result.innerText(), /from €2\.50/);
      assert.match(await result.innerText(), /€3\.99/);
      await check('the search results');

      // The product page: a large picture, the lowest price and trend beside it, compact offers.
      await result.getByRole('link', { name }).click();
      await page.waitForURL(`${server.url}/products/${card.idProduct}`);
      const picture = await page.locator('.product-picture img').boundingBox();
      assert.ok(picture && picture.width >= 150, `the product picture is ${picture?.width} px wide`);
      assert.equal(await page.locator('[data-price=lowest]').innerText(), '€2.50');
      assert.equal(await page.locator('[data-price=trend]').innerText(), '€3.99');
      assert.match(await page.locator('.buybox').innerText(), /6 copies in 3 offers/);
      const rows = page.locator('table.offers tbody tr');
      assert.equal(await rows.count(), 3);
      if (size === 'phone') {
        for (let i = 0; i < 3; i++) {
          const r = await rows.nth(i).boundingBox();
          assert.ok(r!.height <= 120, `offer ${i + 1} is ${r!.height} px tall`);
        }
      }
      await check('the product page');

      // Add the cheapest offer to the cart.
      await rows.first().getByRole('button', { name: 'Add to cart' }).click();
      await page.waitForURL(`${server.url}/products/${card.idProduct}`);
      await page.locator('.flash').waitFor();
      await page.goto(`${server.url}/cart`);
      const line = page.locator(`#line-${seller.idArticles[0]}`);
      assert.equal(await line.locator(`img[alt="${name}"]`).count(), 1);
      // The cheapest shipping method is the one chosen.
      const method = page.locator('select[name=idShippingMethod]').first();
      const firstOption = await method.locator('option').first().getAttribute('value');
      assert.equal(await method.inputValue(), firstOption);
      await check('the cart');

      // Buy and pay: one step, the balance covers it.
      const buyAndPay = page.locator('#buy-and-pay');
      assert.match(await buyAndPay.innerText(), /^Buy and pay €/);
      await buyAndPay.click();
      await page.waitForURL(`${server.url}/orders?actor=buyer&state=paid`);
      assert.match(await page.locator('.flash').innerText(), /Bought and paid: 1 order\./);
      await check('the paid orders');

      const paid = await signedFetch(server, buyer.cred, 'GET', '/orders/buyer/paid');
      assert.equal(paid.status, 200);
      assert.equal(paid.json.order.length, 1);
      assert.equal(paid.json.order[0].article[0].idArticle, seller.idArticles[0]);
      const idOrder = paid.json.order[0].idOrder as number;
      await page.goto(`${server.url}/orders/${idOrder}`);
      await check('the order');

      // A page nobody has: still the signed-in header.
      await page.goto(`${server.url}/no-such-page`);
      assert.match(await page.locator('header').innerText(), /Cart/);
      await check('the 404 page');
      if (size === 'desktop') {
        // The documentation: the guides' pages are the site's own and held to the same bar.
        for (const path of ['/docs', '/docs/using-the-website']) {
          await page.goto(`${server.url}${path}`);
          await check(path);
        }
        // The API reference is drawn by Redoc: the site's header on it is held to the bar; what
        // Redoc draws is its own (docs/using-the-website.md says what axe finds there).
        await page.goto(`${server.url}/docs/api/reference`);
        await page.locator('.redoc-wrap').waitFor({ timeout: 120_000 });
        assert.deepEqual(
          await accessibilityProblems(page, 'header.top'),
          [],
          'axe on the header of the reference page',
        );
      }
      assert.deepEqual(
        refused.filter((t) => !/404 \(Not Found\)/.test(t)),
        [],
        'no console errors (a refused request among them)',
      );
    });
  }
});

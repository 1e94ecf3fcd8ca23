// One-off (not committed): the "Done means" walk on a real `serve` with the demo data, and the README picture.
import { chromium } from 'playwright-core';
const base = process.argv[2];
const out = process.argv[3];
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu'],
});
const page = await (
  await browser.newContext({ viewport: { width: 1200, height: 900 }, locale: 'en-GB' })
).newPage();
await page.goto(`${base}/`);
await page.getByRole('link', { name: 'Sign in' }).click();
await page.getByLabel('Username', { exact: true }).fill('demo-buyer');
await page.getByLabel('Password', { exact: true }).fill('cardbazaar-demo');
await page.getByRole('button', { name: 'Sign in' }).click();
await page.waitForURL(/\/profile/);
await page.getByRole('link', { name: 'Find cards' }).click();
// A card demo-seller offers: from its seller page.
await page.goto(`${base}/users/demo-seller`);
const first = page.locator('table.offers tbody tr').first();
const productHref = await first.locator('td').nth(1).locator('a').getAttribute('href');
const name = (await first.locator('td').nth(1).locator('a').innerText()).trim();
console.log('card', name, productHref);
await page.goto(`${base}/cards`);
await page.getByLabel('Card name').fill(name);
await page.getByLabel('Exact name').check();
await page.getByRole('button', { name: 'Search' }).click();
await page.locator(`a[href="${productHref}"]`).first().click();
await page.waitForURL(new RegExp(productHref + '$'));
await page.screenshot({ path: out, fullPage: false });
const row = page
  .locator('table.offers tbody tr', { has: page.locator('a', { hasText: /^demo-seller$/ }) })
  .first();
console.log('offers of demo-seller on page', await row.count());
await row.getByRole('button', { name: 'Add to cart' }).click();
await page.waitForLoadState();
console.log('flash', await page.locator('.flash').innerText());
await page.getByRole('link', { name: 'Cart' }).click();
await page.getByRole('button', { name: 'Buy now' }).click();
await page.waitForURL(/\/balance/);
console.log('flash', await page.locator('.flash').innerText());
await page.locator('table tbody tr').first().getByRole('button', { name: 'Pay' }).click();
await page.waitForURL(/\/balance$/);
console.log('flash', await page.locator('.flash').innerText());
await page.screenshot({ path: '/tmp/shop-demo/balance.png', fullPage: true });
await browser.close();

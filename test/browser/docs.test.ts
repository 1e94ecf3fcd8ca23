import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeUnless } from '../helpers.js';
import { NO_BROWSER, useBrowser } from './harness.js';

/**
 * `/docs/api/reference` in Chromium: Redoc, served by cardbazaar itself, renders the document's
 * operations; the reference's old deep links (`/docs#tag/…`, from when it was `/docs`) land there.
 */
describeUnless(NO_BROWSER, 'the API reference in a browser', () => {
  const ctx = useBrowser('docs');

  it('renders the introduction and finds an operation, with nothing refused by the page policy', async () => {
    const { server, chrome } = ctx;
    const page = await chrome.newPage('docs');
    const refused: string[] = [];
    const outside: string[] = [];
    page.on('console', (m) => {
      // Redoc's sidebar logo came from its CDN, which the policy refused: it is the site's icon now.
      if (/Content Security Policy|Refused/i.test(m.text())) refused.push(m.text());
    });
    page.on('request', (r) => {
      if (!r.url().startsWith(server.url) && !r.url().startsWith('blob:') && !r.url().startsWith('data:'))
        outside.push(r.url());
    });
    await page.goto(`${server.url}/docs/api/reference`);
    await page
      .getByRole('heading', { name: 'Signing a request (OAuth 1.0, HMAC-SHA1)' })
      .waitFor({ timeout: 120_000 });
    // An operation, rendered in the middle panel under its summary, with its app kinds.
    const operation = page.getByRole('heading', { name: 'The account of the user the app acts for' });
    await operation.first().scrollIntoViewIfNeeded({ timeout: 60_000 });
    assert.equal(await operation.first().isVisible(), true);
    // An old link, from when the reference was /docs: sent on, fragment and all.
    await page.goto(`${server.url}/docs#tag/account/operation/getAccount`);
    await page.waitForURL(`${server.url}/docs/api/reference#tag/account/operation/getAccount`, {
      timeout: 60_000,
    });
    await operation.first().waitFor({ timeout: 60_000 });
    // Its recorded example (docs/openapi-examples.json): the signed request, and the demo seller's
    // account as the answer, in the panel beside the operation.
    const section = page.locator('[data-section-id="operation/getAccount"]');
    await section.getByText('Signed request (demo data)').first().waitFor({ timeout: 60_000 });
    await section
      .getByText(/oauth_consumer_key=/)
      .first()
      .waitFor({ timeout: 60_000 });
    const sample = section.getByText(/demo-seller/).first();
    await sample.waitFor({ timeout: 60_000 });
    assert.equal(await sample.isVisible(), true);
    // The site's header and icon are on the reference too.
    assert.equal(await page.locator('header.top a.brand').count(), 1);
    assert.equal(await page.locator('link[rel=icon][href="/assets/icon.svg"]').count(), 1);
    assert.deepEqual(refused, []);
    assert.deepEqual(outside, [], 'the page loads nothing from elsewhere');
  });
});

import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeUnless, signedHeader } from '../helpers.js';
import { createAppOnPage, NO_BROWSER, register, useBrowser } from './harness.js';

/**
 * "Make a request that fails, and find out why from the request log and the debugger" (issue 15),
 * in Chromium against a real server: the failed request in the list, opened in full, then in the
 * debugger with the header the client sent and the secrets typed in.
 */
describeUnless(NO_BROWSER, 'the request log and the signature debugger in Chromium', () => {
  const ctx = useBrowser('request-log');

  it('finds a failed request in the log and learns from the debugger that the query was not signed', async () => {
    const { server, chrome } = ctx;
    const page = await chrome.newPage('developer');
    await register(page, server, 'debugging-dev', 'dev password');
    const cred = await createAppOnPage(page, server, 'dedicated', 'Sync tool');

    const base = `${server.url}/ws/v2.0/output.json`;
    assert.equal(
      (
        await fetch(`${base}/account`, {
          headers: { authorization: signedHeader(cred, 'GET', `${base}/account`) },
        })
      ).status,
      200,
    );
    // The mistake: the query left out of what was signed.
    const header = signedHeader(cred, 'GET', `${base}/games`);
    const failed = await fetch(`${base}/games?lang=de`, { headers: { authorization: header } });
    assert.equal(failed.status, 401);
    await new Promise((resolve) => setImmediate(resolve));
    await server.services.requestLog!.flush();

    await page.getByRole('link', { name: 'Requests' }).click();
    await page.waitForURL(`${server.url}/requests`);
    assert.match(await page.locator('#request-count').innerText(), /2 requests/);
    const rows = page.locator('table.requests tbody tr');
    assert.equal(await rows.count(), 2);
    assert.match(await rows.nth(0).innerText(), /401/);
    assert.match(await rows.nth(0).innerText(), /games\?lang=de/);
    assert.match(await rows.nth(0).innerText(), /invalid_signature/);
    assert.match(await rows.nth(1).innerText(), /200/);

    await page.getByLabel('Status').fill('200');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/status=200/);
    assert.equal(await page.locator('table.requests tbody tr').count(), 1);
    await page.goBack();
    await page.waitForURL(`${server.url}/requests`);
    await page.waitForLoadState('load');
    // For a reviewer only: a screenshot that hangs (seen once in CI right after a history
    // navigation) must not fail the story, as in the harness.
    await chrome.shot(page, 'developer').catch(() => {});

    await page.locator('table.requests tbody tr').nth(0).getByRole('link').click();
    await page.waitForURL(/\/requests\/\d+$/);
    const baseString = await page.locator('pre[data-field="request.baseString"]').innerText();
    assert.equal(baseString, failed.headers.get('x-oauth-base-string'));
    assert.doesNotMatch(
      await page.locator('pre[data-field="request.authorization"]').innerText(),
      /oauth_signature=/,
    );

    await page.getByRole('link', { name: 'Open in the signature debugger' }).click();
    await page.waitForURL(/\/signature-debugger\?request=\d+$/);
    assert.equal(await page.getByLabel('URL (with the query)').inputValue(), `${base}/games?lang=de`);
    await page.getByLabel('Authorization header').fill(header);
    await page.getByLabel('App secret (consumer secret)').fill(cred.appSecret);
    await page.getByLabel('Access token secret (empty for a widget app)').fill(cred.accessTokenSecret);
    await page.getByRole('button', { name: 'Check the signature' }).click();
    await page.waitForURL(`${server.url}/signature-debugger`);
    assert.equal(await page.locator('#verdict').getAttribute('data-verdict'), 'mismatch');
    assert.match(await page.locator('#mistakes').innerText(), /The query was left out of the signature/);
    assert.match(await page.locator('#difference').innerText(), /in the parameter lang/);
    assert.equal(await page.locator('#base-string').innerText(), baseString);
    assert.equal(
      await page.getByLabel('App secret (consumer secret)').inputValue(),
      '',
      'secrets are typed again',
    );
  });
});

import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeUnless, xmlRequest } from '../helpers.js';
import {
  createAppOnPage,
  NO_BROWSER,
  PHONE,
  register,
  signedFetch,
  signIn,
  startCallbackServer,
  useBrowser,
} from './harness.js';

/**
 * The scenarios in Chromium: a person registers, creates apps and reads their credentials
 * off the page; a third-party app's user authorizes it; and the hostile cases.
 */

describeUnless(NO_BROWSER, 'the website in Chromium', () => {
  const ctx = useBrowser('website', { signInAttemptsPerPair: 3, signInAttemptsPerAddress: 1000 });

  it('registers, signs in, creates a dedicated app and uses its four credentials', async () => {
    const { server, chrome } = ctx;
    const page = await chrome.newPage('dedicated');
    await register(page, server, 'alice', 'alice password');
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL(`${server.url}/`);
    await signIn(page, server, 'alice', '/profile', 'alice password');
    const cred = await createAppOnPage(page, server, 'dedicated', 'Alice tools');
    assert.ok(cred.appToken && cred.appSecret && cred.accessToken && cred.accessTokenSecret);
    const res = await signedFetch(server, cred, 'GET', '/account');
    assert.equal(res.status, 200);
    assert.equal(res.json.account.username, 'alice');
    // Phone width: the same profile, for the screenshots.
    const phone = await chrome.newPage('phone', PHONE);
    await signIn(phone, server, 'alice', '/profile', 'alice password');
  });

  it('runs the third-party flow to a token pair that acts for the second user, then refuses reuse, age and revocation', async () => {
    const { server, chrome } = ctx;
    const callback = await startCallbackServer();
    try {
      const maker = await chrome.newPage('maker');
      await register(maker, server, 'robotmaker', 'maker password');
      const app = await createAppOnPage(maker, server, 'thirdParty', 'Price Robot', callback.url);

      const second = await chrome.newPage('bob');
      await register(second, server, 'bob', 'bob password');
      await second.getByRole('button', { name: 'Sign out', exact: true }).click();
      await second.goto(`${server.url}/ws/v2.0/authenticate/${app.appToken}/de`);
      await second.waitForURL(/\/login\?/);
      await second.getByLabel('Benutzername').fill('bob');
      await second.getByLabel('Passwort', { exact: true }).fill('bob password');
      await second.getByRole('button', { name: 'Anmelden' }).click();
      await second.waitForURL(/\/authorize\//);
      assert.match(await second.locator('h1').innerText(), /Price Robot autorisieren\?/);
      // The button waits two seconds before it can be clicked; playwright waits for it.
      assert.equal(await second.locator('#approve').isDisabled(), true);
      await second.getByRole('button', { name: 'Autorisieren' }).click();
      await second.waitForURL(/\/callback\?request_token=/);
      // (The browser may also ask the callback's host for a favicon.)
      const tokens = () =>
        callback.received
          .filter((u) => u.pathname === '/callback')
          .map((u) => u.searchParams.get('request_token')!);
      assert.equal(tokens().length, 1);
      const requestToken = tokens()[0]!;

      const appOnly = { ...app, accessToken: '', accessTokenSecret: '' };
      const body = xmlRequest(
        `<app_key>${app.appToken}</app_key><request_token>${requestToken}</request_token>`,
      );
      const access = await signedFetch(server, appOnly, 'POST', '/access', body);
      assert.equal(access.status, 200);
      const bobCred = {
        ...app,
        accessToken: access.json.oauth_token,
        accessTokenSecret: access.json.oauth_token_secret,
      };
      const account = await signedFetch(server, bobCred, 'GET', '/account');
      assert.equal(account.status, 200);
      assert.equal(account.json.account.username, 'bob');

      assert.equal((await signedFetch(server, appOnly, 'POST', '/access', body)).status, 401);

      // A request token older than 24 hours.
      await second.goto(`${server.url}/ws/v2.0/authenticate/${app.appToken}`);
      await second.getByRole('button', { name: 'Authorize' }).click();
      await second.waitForURL(/\/callback\?request_token=/);
      const old = tokens()[1]!;
      assert.notEqual(old, requestToken);
      server.clock.advance(24 * 3600 * 1000 + 1000);
      const expired = await signedFetch(
        server,
        appOnly,
        'POST',
        '/access',
        xmlRequest(`<app_key>${app.appToken}</app_key><request_token>${old}</request_token>`),
      );
      assert.equal(expired.status, 401);
      assert.equal(expired.json.internal_error_code, 'request_token_expired');

      // Revoked from "Authorized apps": the next signed call is 401.
      await second.goto(`${server.url}/profile#authorized`);
      await second.locator('#authorized').getByRole('button', { name: 'Revoke' }).first().click();
      await second.waitForURL(/\/profile#authorized$/);
      assert.equal((await signedFetch(server, bobCred, 'GET', '/account')).status, 401);
    } finally {
      await callback.close();
    }
  });

  it('shows hostile names as text and answers the sign-in limit', async () => {
    const { server, chrome } = ctx;
    const page = await chrome.newPage('hostile');
    await page.goto(`${server.url}/register`);
    await page.getByLabel('Username', { exact: true }).fill('<script>alert(1)</script>');
    await page.getByRole('button', { name: 'Create the account' }).click();
    await page.waitForLoadState();
    assert.equal(
      await page.getByLabel('Username', { exact: true }).inputValue(),
      '<script>alert(1)</script>',
    );
    await register(page, server, 'mallory', 'mallory password');
    await createAppOnPage(page, server, 'widget', '<script>alert(2)</script>');
    assert.match(await page.locator('#apps').innerText(), /<script>alert\(2\)<\/script>/);

    const limited = await chrome.newPage('limit');
    for (let i = 0; i < 4; i++) {
      await limited.goto(`${server.url}/login`);
      await limited.getByLabel('Username', { exact: true }).fill('mallory');
      await limited.getByLabel('Password', { exact: true }).fill(`wrong ${i}`);
      await limited.getByRole('button', { name: 'Sign in' }).click();
      await limited.waitForLoadState();
    }
    assert.match(await limited.locator('.error').first().innerText(), /Too many failed sign-ins/);
  });
});

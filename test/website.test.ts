import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  ApiClient,
  BASE,
  countRows,
  createTestClient,
  DIALECTS,
  startTestServer,
  type TestCredentials,
  type TestServer,
  xmlRequest,
} from './helpers.js';
import { credentialOnPage, textOf, WebClient } from './web-client.js';
import { sellerActivationStatus } from '../src/domain/seller-activation.js';

/**
 * The website through HTTP, as a browser without JavaScript uses it (`WebClient` keeps cookies and
 * posts each form with its page's CSRF token): accounts, the profile page and its apps, and the
 * third-party authorization flow to `POST /access`. `test/browser/` runs the same in Chromium.
 */

let counter = 0;
const uniqueName = (prefix: string) => `${prefix}${++counter}x${Date.now() % 100000}`;

function appIdFrom(location: string | undefined): number {
  const m = /#app-(\d+)$/.exec(location ?? '');
  assert.ok(m, `redirected to an app: ${location}`);
  return Number(m[1]);
}

/** Creates an app on the profile page and reads its credentials off the page, as a person would. */
async function createAppOnPage(web: WebClient, kind: string, name: string, callbackUrl = '') {
  await web.get('/profile/apps/new');
  const created = await web.post('/profile/apps', { kind, name, callbackUrl });
  assert.equal(created.status, 303, created.text);
  const idApp = appIdFrom(created.location);
  const page = await web.get('/profile');
  const read = (n: string) => credentialOnPage(page.text, idApp, n) ?? '';
  const cred: TestCredentials = {
    idApp,
    kind: kind as TestCredentials['kind'],
    appToken: read('appToken'),
    appSecret: read('appSecret'),
    accessToken: read('accessToken'),
    accessTokenSecret: read('accessTokenSecret'),
    idUser: 0,
  };
  return { idApp, cred, page };
}

/** `POST /access` signed with the app's token and secret alone (oauth_token empty unless given). */
function exchange(
  server: TestServer,
  app: TestCredentials,
  requestToken: string,
  options: { json?: boolean; oauthToken?: string } = {},
) {
  const signer = new ApiClient(server, {
    ...app,
    accessToken: options.oauthToken ?? '',
    accessTokenSecret: '',
  });
  return signer.post(
    '/access',
    xmlRequest(`<app_key>${app.appToken}</app_key><request_token>${requestToken}</request_token>`),
    { json: options.json ?? true },
  );
}

for (const dialect of DIALECTS) {
  describe(`the website (${dialect})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({
        dialect,
        config: { signInAttemptsPerPair: 3, signInAttemptsPerAddress: 1000 },
      });
    });
    after(() => server.close());

    it('registers an account that is signed in at once, may buy but not sell yet', async () => {
      const web = new WebClient(server);
      const name = uniqueName('joiner');
      const res = await web.register(name);
      assert.equal(res.status, 303);
      assert.equal(res.location, '/profile');
      const session = ([] as string[])
        .concat(res.headers['set-cookie'] as string[])
        .find((c) => c.startsWith('cardbazaar_session='))!;
      assert.match(session, /; HttpOnly/);
      assert.match(session, /; SameSite=Lax/);
      assert.doesNotMatch(session, /; Secure/, 'not Secure on an http base URL');
      const profile = await web.get('/profile');
      assert.equal(profile.status, 200);
      assert.match(textOf(profile.text), new RegExp(`Welcome, ${name}!`));
      assert.match(textOf(profile.text), /You may buy, but not sell yet/);
      const user = await server.services.database.db
        .selectFrom('users')
        .selectAll()
        .where('username', '=', name)
        .executeTakeFirstOrThrow();
      assert.equal(user.sellerActivation, 0);
      assert.equal(user.maySell, 0);
      assert.equal(user.email, `${name}@example.org`);
      assert.equal(user.country, 'FR');
      assert.match(user.passwordHash ?? '', /^scrypt\$/);
      // The flash message is shown once.
      assert.doesNotMatch(textOf((await web.get('/profile')).text), /Welcome,/);
    });

    it('answers a bad registration with 400, what was typed, and each message beside its field', async () => {
      const web = new WebClient(server);
      await web.get('/register');
      const res = await web.post('/register', {
        username: '<script>alert(1)</script>',
        email: 'nope',
        password: 'short',
        country: '',
      });
      assert.equal(res.status, 400);
      assert.ok(
        res.text.includes('value="&lt;script&gt;alert(1)&lt;/script&gt;"'),
        'the typed username comes back, escaped',
      );
      assert.ok(!res.text.includes('<script>alert(1)'), 'never as markup');
      assert.match(res.text, /id="username-error">A username has 3 to 40/);
      assert.match(res.text, /id="email-error">Give an email address/);
      assert.match(res.text, /id="password-error">A password has at least 8 characters/);
      assert.match(res.text, /id="country-error">Choose your country/);
      assert.ok(!res.text.includes('value="short"'), 'the password is not sent back');

      const taken = uniqueName('taken');
      await new WebClient(server).register(taken);
      await web.get('/register');
      const again = await web.post('/register', {
        username: taken.toUpperCase(),
        email: 'x@example.org',
        password: 'long enough pw',
        country: 'D',
      });
      assert.equal(again.status, 400);
      assert.match(again.text, /id="username-error">This username is taken/);
    });

    it('speaks the visitor’s language, and the user’s display language once signed in', async () => {
      const visitor = new WebClient(server, { acceptLanguage: 'de-DE,de;q=0.9' });
      assert.match((await visitor.get('/login')).text, /<html lang="de">[\s\S]*Anmelden/);
      assert.match((await visitor.get('/login?lang=it')).text, /<html lang="it">[\s\S]*Accedi/);
      const name = uniqueName('sprache');
      await visitor.register(name);
      const profile = await visitor.get('/profile');
      assert.match(profile.text, /Profil von/);
      const changed = await visitor.post('/profile/language', { idDisplayLanguage: '4' });
      assert.equal(changed.status, 303);
      const spanish = await visitor.get('/profile');
      assert.match(spanish.text, /<html lang="es">[\s\S]*Perfil de/);
      assert.match(spanish.text, /Idioma de visualización guardado/);
      assert.match(spanish.text, /0,00\u00a0€/, 'money in the reader’s locale');
    });

    it('says the same for a wrong password and an unknown username, and makes a new session id at each sign-in', async () => {
      const name = uniqueName('signer');
      const first = new WebClient(server);
      await first.register(name, 'the right password');
      const before = first.cookies.get('cardbazaar_session');
      const wrong = await new WebClient(server).signIn(name, 'not the password');
      const unknown = await new WebClient(server).signIn(uniqueName('nobody'), 'not the password');
      assert.equal(wrong.status, 401);
      assert.equal(unknown.status, 401);
      const message = (r: typeof wrong) => /<p class="error" id="password-error">([^<]*)</.exec(r.text)?.[1];
      assert.equal(message(wrong), 'Wrong username or password.');
      assert.equal(message(unknown), message(wrong));
      assert.equal(
        wrong.text.length,
        unknown.text.replace(/value="[^"]*"/g, (m) => m).length - (unknown.text.length - wrong.text.length),
        'same page',
      );

      const ok = await first.signIn(name, 'the right password', '/profile?tab=x');
      assert.equal(ok.status, 303);
      assert.equal(ok.location, '/profile?tab=x');
      const after = first.cookies.get('cardbazaar_session');
      assert.ok(before && after && before !== after, 'a new session id');
      // The old id no longer signs anyone in.
      const stale = new WebClient(server);
      stale.cookies.set('cardbazaar_session', before!);
      assert.equal((await stale.get('/profile')).status, 303);
      assert.equal((await first.get('/profile')).status, 200);
    });

    it('never redirects elsewhere after sign-in', async () => {
      const name = uniqueName('nexter');
      await new WebClient(server).register(name, 'the right password');
      for (const next of ['//evil.example/x', 'https://evil.example/', '/\\evil.example']) {
        const web = new WebClient(server);
        const res = await web.signIn(name, 'the right password', next);
        assert.equal(res.location, '/profile', next);
      }
    });

    it('limits failed sign-ins per username and address, even before a right password', async () => {
      const name = uniqueName('limited');
      await new WebClient(server).register(name, 'the right password');
      const attacker = new WebClient(server, { remoteAddress: '10.9.8.7' });
      for (let i = 0; i < 3; i++) assert.equal((await attacker.signIn(name, `wrong ${i}`)).status, 401);
      const limited = await attacker.signIn(name, 'the right password');
      assert.equal(limited.status, 429);
      assert.ok(Number(limited.headers['retry-after']) > 0);
      assert.match(textOf(limited.text), /Too many failed sign-ins/);
      assert.equal(attacker.cookies.get('cardbazaar_session'), undefined);
    });

    it('refuses a form without its CSRF token with 403 and changes nothing', async () => {
      const web = new WebClient(server);
      await web.register(uniqueName('csrf'));
      const apps = await countRows(server, 'apps');
      const res = await web.post('/profile/apps', { _csrf: '', kind: 'dedicated', name: 'sneaky' });
      assert.equal(res.status, 403);
      assert.match(res.headers['content-type'] as string, /text\/html/);
      assert.equal(await countRows(server, 'apps'), apps);
      const forged = await web.post('/profile/apps', {
        _csrf: 'forged-token',
        kind: 'dedicated',
        name: 'sneaky',
      });
      assert.equal(forged.status, 403);
      const users = await countRows(server, 'users');
      const stranger = new WebClient(server);
      const reg = await stranger.post('/register', {
        _csrf: '',
        username: uniqueName('nocsrf'),
        email: 'a@example.org',
        password: 'long enough pw',
        country: 'D',
      });
      assert.equal(reg.status, 403);
      assert.equal(await countRows(server, 'users'), users);
    });

    it('creates a dedicated app whose four credentials sign API requests, regenerates and revokes it', async () => {
      const web = new WebClient(server);
      const name = uniqueName('dev');
      await web.register(name);
      const { idApp, cred, page } = await createAppOnPage(web, 'dedicated', '<script>x</script> bot');
      assert.ok(page.text.includes('&lt;script&gt;x&lt;/script&gt; bot'), 'the app name is text');
      assert.ok(!page.text.includes('<script>x</script>'));
      for (const k of ['appToken', 'appSecret', 'accessToken', 'accessTokenSecret'] as const)
        assert.ok(cred[k].length >= 20, k);
      const api = new ApiClient(server, cred);
      const account = await api.get('/account', { json: true });
      assert.equal(account.status, 200);
      assert.equal(account.json.account.username, name);

      await web.post(`/profile/apps/${idApp}/regenerate`);
      assert.equal((await api.get('/account')).status, 401, 'the old access token answers 401 at once');
      const fresh = credentialOnPage((await web.get('/profile')).text, idApp, 'accessToken')!;
      assert.notEqual(fresh, cred.accessToken);
      const freshSecret = credentialOnPage((await web.get('/profile')).text, idApp, 'accessTokenSecret')!;
      assert.equal(
        (
          await new ApiClient(server, { ...cred, accessToken: fresh, accessTokenSecret: freshSecret }).get(
            '/account',
          )
        ).status,
        200,
      );

      const revoked = await web.post(`/profile/apps/${idApp}/revoke`);
      assert.equal(revoked.status, 303);
      const gone = await new ApiClient(server, {
        ...cred,
        accessToken: fresh,
        accessTokenSecret: freshSecret,
      }).get('/account', { json: true });
      assert.equal(gone.status, 401);
      assert.equal(gone.json.internal_error_code, 'revoked_app');
      assert.equal(
        credentialOnPage((await web.get('/profile')).text, idApp, 'appToken'),
        undefined,
        'no longer listed',
      );
    });

    it('keeps several apps of every kind, checks the callback URL, and acts only on the user’s own apps', async () => {
      const web = new WebClient(server);
      await web.register(uniqueName('many'));
      await createAppOnPage(web, 'dedicated', 'one');
      await createAppOnPage(web, 'widget', 'two');
      await createAppOnPage(web, 'thirdParty', 'three', 'https://app.example.org/cb');
      const local = await createAppOnPage(web, 'thirdParty', 'four', 'http://127.0.0.1:7777/cb');
      assert.equal(credentialOnPage(local.page.text, local.idApp, 'callbackUrl'), 'http://127.0.0.1:7777/cb');
      await web.get('/profile/apps/new');
      for (const [url, message] of [
        ['', /A third-party app needs a callback URL/],
        ['http://app.example.org/cb', /must use https, or be http:\/\/localhost/],
        ['javascript:alert(1)', /Give a full address/],
        ['https://app.example.org/cb#x', /Give a full address/],
      ] as const) {
        const res = await web.post('/profile/apps', { kind: 'thirdParty', name: 'bad', callbackUrl: url });
        assert.equal(res.status, 400, url);
        assert.match(res.text, message);
        assert.match(res.text, /value="bad"/, 'what was typed stays');
      }
      const noName = await web.post('/profile/apps', { kind: 'widget', name: '  ' });
      assert.equal(noName.status, 400);
      assert.match(noName.text, /id="name-error">Give the app a name/);

      // Someone else's app and authorization ids are 404, and nothing changes.
      const other = await createTestClient(server);
      const apps = await countRows(server, 'apps');
      const res = await web.post(`/profile/apps/${other.cred.idApp}/revoke`);
      assert.equal(res.status, 404);
      assert.equal((await other.api.get('/account')).status, 200);
      assert.equal((await web.post(`/profile/apps/${other.cred.idApp}/regenerate`)).status, 404);
      const token = await server.services.database.db
        .selectFrom('accessTokens')
        .select('idAccessToken')
        .where('idApp', '=', other.cred.idApp)
        .executeTakeFirstOrThrow();
      assert.equal((await web.post(`/profile/authorizations/${token.idAccessToken}/revoke`)).status, 404);
      assert.equal((await other.api.get('/account')).status, 200);
      assert.equal(await countRows(server, 'apps'), apps);
    });

    it('runs the third-party flow: consent, callback with a request token, POST /access, and revocation', async () => {
      const developer = new WebClient(server);
      await developer.register(uniqueName('maker'));
      const { cred: app } = await createAppOnPage(
        developer,
        'thirdParty',
        'Price Robot',
        'http://127.0.0.1:9/callback?x=1',
      );

      const userName = uniqueName('client');
      await new WebClient(server).register(userName, 'user password 1');
      const browser = new WebClient(server);
      // The app sends the browser to /authenticate, with a callback of someone's choosing that is ignored.
      const start = await browser.get(
        `/ws/v2.0/authenticate/${app.appToken}/de?callback=https://evil.example/steal`,
      );
      assert.equal(start.status, 303);
      assert.equal(start.location, `/authorize/${app.appToken}?lang=de`);
      assert.equal(start.headers['set-cookie'], undefined, 'the API path sets no cookie');
      const toLogin = await browser.get(start.location!);
      assert.equal(toLogin.status, 303);
      assert.match(toLogin.location!, /^\/login\?next=%2Fauthorize%2F/);
      assert.match(toLogin.location!, /&lang=de$/);
      const login = await browser.get(toLogin.location!);
      assert.match(login.text, /<html lang="de">/);
      const next = /name="next" value="([^"]+)"/.exec(login.text)![1]!.replace(/&amp;/g, '&');
      const signedIn = await browser.post('/login', {
        username: userName,
        password: 'user password 1',
        next,
      });
      assert.equal(signedIn.location, `/authorize/${app.appToken}?lang=de`);
      const consent = await browser.get(signedIn.location!);
      assert.equal(consent.status, 200);
      const text = textOf(consent.text);
      assert.match(text, /Price Robot autorisieren\?/);
      assert.match(text, /von .*maker/);
      assert.match(text, new RegExp(`angemeldet als ${userName}`));
      assert.match(text, /Diese Adresse verwendet kein https/);
      assert.match(
        String(consent.headers['content-security-policy']),
        /form-action 'self' http:\/\/127\.0\.0\.1:9/,
      );
      assert.equal(consent.headers['x-frame-options'], 'DENY');

      const approved = await browser.post(`/authorize/${app.appToken}?lang=de`, {
        decision: 'approve',
        callbackUrl: 'https://evil.example/',
      });
      assert.equal(approved.status, 303);
      const location = new URL(approved.location!);
      assert.equal(
        `${location.origin}${location.pathname}`,
        'http://127.0.0.1:9/callback',
        'the registered callback only',
      );
      assert.equal(location.searchParams.get('x'), '1');
      const requestToken = location.searchParams.get('request_token')!;
      assert.ok(requestToken.length >= 40);

      const access = await exchange(server, app, requestToken);
      assert.equal(access.status, 200, access.text);
      assert.deepEqual(Object.keys(access.json), ['oauth_token', 'oauth_token_secret', 'account']);
      assert.equal(access.json.account.username, userName);
      const userApi = new ApiClient(server, {
        ...app,
        accessToken: access.json.oauth_token,
        accessTokenSecret: access.json.oauth_token_secret,
      });
      const account = await userApi.get('/account', { json: true });
      assert.equal(account.status, 200);
      assert.equal(account.json.account.username, userName);

      const again = await exchange(server, app, requestToken);
      assert.equal(again.status, 401);
      assert.equal(again.json.internal_error_code, 'request_token_used');

      // The authorization is listed on the user's profile, and revoking it is immediate.
      const profile = await browser.get('/profile');
      assert.match(textOf(profile.text), /Price Robot/);
      const idAccessToken = Number(/id="authorization-(\d+)"/.exec(profile.text)![1]);
      const revoked = await browser.post(`/profile/authorizations/${idAccessToken}/revoke`);
      assert.equal(revoked.status, 303);
      const after = await userApi.get('/account', { json: true });
      assert.equal(after.status, 401);
      assert.equal(after.json.internal_error_code, 'revoked_access_token');
    });

    it('answers /access in XML, takes oauth_token as the request token, and refuses each bad token with its own code', async () => {
      const developer = new WebClient(server);
      await developer.register(uniqueName('maker'));
      const { cred: app } = await createAppOnPage(
        developer,
        'thirdParty',
        'Robot Two',
        'https://robot.example.org/cb',
      );
      const { cred: otherApp } = await createAppOnPage(
        developer,
        'thirdParty',
        'Robot Three',
        'https://robot.example.org/cb3',
      );
      const browser = new WebClient(server);
      const userName = uniqueName('xmluser');
      await browser.register(userName);
      const approve = async (appToken: string) => {
        await browser.get(`/authorize/${appToken}`);
        const res = await browser.post(`/authorize/${appToken}`, { decision: 'approve' });
        return new URL(res.location!).searchParams.get('request_token')!;
      };

      const token1 = await approve(app.appToken);
      const xml = await exchange(server, app, token1, { json: false, oauthToken: token1 });
      assert.equal(xml.status, 200, xml.text);
      assert.match(
        xml.text,
        /^<\?xml[^>]*>\s*<response><oauth_token>[A-Za-z0-9]+<\/oauth_token><oauth_token_secret>[A-Za-z0-9]+<\/oauth_token_secret><account><idUser>\d+<\/idUser><username>/,
      );

      const unknown = await exchange(server, app, 'x'.repeat(43));
      assert.equal(unknown.json.internal_error_code, 'unknown_request_token');
      const tokenOther = await approve(otherApp.appToken);
      const other = await exchange(server, app, tokenOther);
      assert.equal(other.status, 401);
      assert.equal(other.json.internal_error_code, 'request_token_other_app');
      const mismatch = await exchange(server, app, tokenOther, { oauthToken: 'something-else' });
      assert.equal(mismatch.status, 401);
      assert.equal(mismatch.json.internal_error_code, 'request_token_mismatch');

      const old = await approve(app.appToken);
      server.clock.advance(24 * 3600 * 1000 + 1000);
      const expired = await exchange(server, app, old);
      assert.equal(expired.status, 401);
      assert.equal(expired.json.internal_error_code, 'request_token_expired');
      // The other app's token, also older than a day now, still exchanges for nothing.
      assert.equal(
        (await exchange(server, otherApp, tokenOther)).json.internal_error_code,
        'request_token_expired',
      );
    });

    it('lets third-party access tokens expire after THIRD_PARTY_TOKEN_DAYS, and logout still revokes one', async () => {
      const developer = new WebClient(server);
      await developer.register(uniqueName('maker'));
      const { cred: app } = await createAppOnPage(
        developer,
        'thirdParty',
        'Robot Four',
        'https://robot.example.org/cb',
      );
      const browser = new WebClient(server);
      await browser.register(uniqueName('expiring'));
      const tokens = [];
      for (let i = 0; i < 2; i++) {
        await browser.get(`/authorize/${app.appToken}`);
        const res = await browser.post(`/authorize/${app.appToken}`, { decision: 'approve' });
        const access = await exchange(server, app, new URL(res.location!).searchParams.get('request_token')!);
        tokens.push(
          new ApiClient(server, {
            ...app,
            accessToken: access.json.oauth_token,
            accessTokenSecret: access.json.oauth_token_secret,
          }),
        );
      }
      assert.equal((await tokens[0]!.post('/account/logout')).status, 200);
      assert.equal((await tokens[0]!.get('/account')).status, 401);
      server.clock.advance(179 * 24 * 3600 * 1000);
      assert.equal((await tokens[1]!.get('/account')).status, 200);
      server.clock.advance(2 * 24 * 3600 * 1000);
      const expired = await tokens[1]!.get('/account', { json: true });
      assert.equal(expired.status, 401);
      assert.equal(expired.json.internal_error_code, 'expired_access_token');
    });

    it('declines without redirecting, and keeps dedicated and widget tokens at 403 and unknown ones at 404', async () => {
      const developer = new WebClient(server);
      await developer.register(uniqueName('maker'));
      const { cred: app } = await createAppOnPage(
        developer,
        'thirdParty',
        'Robot Five',
        'https://robot.example.org/cb',
      );
      const browser = new WebClient(server);
      await browser.register(uniqueName('decliner'));
      await browser.get(`/authorize/${app.appToken}`);
      const tokensBefore = await countRows(server, 'requestTokens');
      const declined = await browser.post(`/authorize/${app.appToken}`, { decision: 'deny' });
      assert.equal(declined.status, 200);
      assert.equal(declined.location, undefined);
      assert.match(textOf(declined.text), /You did not authorize Robot Five/);
      assert.equal(await countRows(server, 'requestTokens'), tokensBefore);

      const { cred: dedicated } = await createAppOnPage(developer, 'dedicated', 'ded');
      const { cred: widget } = await createAppOnPage(developer, 'widget', 'wid');
      for (const token of [dedicated.appToken, widget.appToken]) {
        const res = await server.app.inject({ url: `/ws/v2.0/authenticate/${token}` });
        assert.equal(res.statusCode, 403);
        assert.match(res.body, /<internal_error_code>app_kind_not_allowed<\/internal_error_code>/);
        assert.equal((await browser.get(`/authorize/${token}`)).status, 403);
      }
      const unknown = await server.app.inject({ url: '/ws/v2.0/output.json/authenticate/nosuchtoken/fr' });
      assert.equal(unknown.statusCode, 404);
      assert.equal(JSON.parse(unknown.body).http_status_code, 404);
      assert.equal(
        (await server.app.inject({ url: `/ws/v2.0/authenticate/${app.appToken}/xx` })).statusCode,
        404,
      );
    });

    it('signs out, and out everywhere', async () => {
      const name = uniqueName('everywhere');
      const a = new WebClient(server);
      await a.register(name, 'the right password');
      const b = new WebClient(server);
      await b.signIn(name, 'the right password');
      assert.match(textOf((await b.get('/profile')).text), /Browsers signed in to your account: 2/);
      const out = await b.post('/profile/sign-out-everywhere');
      assert.equal(out.location, '/login');
      assert.equal((await a.get('/profile')).status, 303);
      assert.equal((await b.get('/profile')).status, 303);
      await a.signIn(name, 'the right password');
      await a.get('/profile');
      assert.equal((await a.post('/logout')).location, '/');
      assert.equal((await a.get('/profile')).status, 303);
    });

    it('changes the password with the current one, keeps nothing on a failure, and signs out everywhere', async () => {
      const name = uniqueName('changer');
      const web = new WebClient(server);
      await web.register(name, 'the old password');
      const other = new WebClient(server);
      await other.signIn(name, 'the old password');
      await web.get('/profile');
      const wrong = await web.post('/profile/password', {
        currentPassword: 'not the old one',
        newPassword: 'the new password',
      });
      assert.equal(wrong.status, 400);
      assert.match(wrong.text, /id="currentPassword-error">This is not your current password\./);
      assert.doesNotMatch(wrong.text, /the new password|not the old one/, 'passwords are never sent back');
      const short = await web.post('/profile/password', {
        currentPassword: 'the old password',
        newPassword: 'short',
      });
      assert.equal(short.status, 400);
      assert.match(short.text, /id="newPassword-error">A password has at least 8 characters\./);
      assert.equal((await other.get('/profile')).status, 200, 'a failed change ends no session');
      const noToken = await web.post('/profile/password', {
        _csrf: '',
        currentPassword: 'the old password',
        newPassword: 'the new password',
      });
      assert.equal(noToken.status, 403);
      const done = await web.post('/profile/password', {
        currentPassword: 'the old password',
        newPassword: 'the new password',
      });
      assert.equal(done.status, 303);
      assert.equal(done.location, '/login');
      assert.equal((await web.get('/profile')).status, 303, 'this browser is signed out');
      assert.equal((await other.get('/profile')).status, 303, 'and every other one');
      assert.equal((await new WebClient(server).signIn(name, 'the old password')).status, 401);
      assert.equal((await new WebClient(server).signIn(name, 'the new password')).status, 303);
    });

    it('activates a registered account as a seller through the profile page, on the API’s rules', async () => {
      const name = uniqueName('activator');
      const web = new WebClient(server);
      await web.register(name);
      const idUser = (
        await server.services.database.db
          .selectFrom('users')
          .select('idUser')
          .where('username', '=', name)
          .executeTakeFirstOrThrow()
      ).idUser;
      const page = await web.get('/profile');
      assert.match(page.text, /id="activation-form"/);
      const details = {
        bankAccountOwner: 'Ada <b>Lovelace</b>',
        iban: 'DE89 3704 0044 0532 0130 01',
        bic: 'COBADEFFXXX',
        bankName: 'Commerzbank',
        phoneNumber: '+49 30 1234567',
      };
      const bad = await web.post('/profile/seller-activation', details);
      assert.equal(bad.status, 400);
      assert.match(bad.text, /id="iban-error">This IBAN has wrong check digits: check it for a typo\./);
      assert.match(bad.text, /value="Ada &lt;b&gt;Lovelace&lt;\/b&gt;"/, 'what was typed is kept, as text');
      assert.equal((await sellerActivationStatus(server.services, idUser)).sellerActivation, 0);
      const requested = await web.post('/profile/seller-activation', {
        ...details,
        iban: 'DE89 3704 0044 0532 0130 00',
      });
      assert.equal(requested.status, 303);
      assert.equal(requested.location, '/profile#selling');
      const pending = await web.get('/profile');
      assert.doesNotMatch(pending.text, /id="activation-form"|id="transfers-form"/);
      assert.match(textOf(pending.text), /They arrive on/);
      server.clock.advance(25 * 60 * 60 * 1000);
      const status = await sellerActivationStatus(server.services, idUser);
      assert.equal(status.sellerActivation, 2);
      const [t1, t2] = status.transfers!;
      const euros = (cents: number) => (cents / 100).toFixed(2);
      const arrived = await web.get('/profile');
      assert.match(arrived.text, /id="transfers-form"/);
      const wrongAmounts = await web.post('/profile/seller-activation/transfers', {
        amount1: euros(t1 === 99 ? 98 : t1 + 1),
        amount2: euros(t2),
      });
      assert.equal(wrongAmounts.status, 400);
      assert.match(
        wrongAmounts.text,
        /id="amount1-error">These are not the two transfers to your account \(4 tries left\)/,
      );
      const notAPrice = await web.post('/profile/seller-activation/transfers', {
        amount1: 'abc',
        amount2: '0.10',
      });
      assert.equal(notAPrice.status, 400);
      assert.match(
        notAPrice.text,
        /id="amount1-error">Give a price with at most two decimals, e.g\. 1\.50 or 1,50\./,
      );
      const done = await web.post('/profile/seller-activation/transfers', {
        amount1: euros(t2),
        amount2: euros(t1),
      });
      assert.equal(done.status, 303);
      const after = await sellerActivationStatus(server.services, idUser);
      assert.equal(after.sellerActivation, 3);
      assert.equal(after.maySell, true);
      assert.match(
        textOf((await web.get('/profile')).text),
        /Your seller account is activated: you may sell\./,
      );
    });

    it('links the documentation and the signature debugger from the front page, in the reader’s language', async () => {
      // A client developer starts at the front page: /docs and the debugger were linked from nowhere
      // (audit of issue 15), and every page made browsers ask for a /favicon.ico that is a 404.
      const visitor = new WebClient(server, { acceptLanguage: 'fr' });
      const home = await visitor.get('/');
      assert.match(home.text, /<a href="\/docs">La documentation : les guides, la référence de l’API/);
      assert.match(home.text, /<a href="\/signature-debugger">Le débogueur de signature/);
      // The site's icon is its own (no /favicon.ico request either).
      assert.match(home.text, /<link rel="icon" href="\/assets\/icon.svg" type="image\/svg\+xml">/);
      const icon = await server.app.inject({ method: 'GET', url: '/assets/icon.svg' });
      assert.equal(icon.statusCode, 200);
      assert.match(String(icon.headers['content-type']), /^image\/svg\+xml/);
      // The profile speaks of its own forms, not of API calls (it said "POST /account/selleractivation").
      await visitor.register(uniqueName('seller'));
      const profile = await visitor.get('/profile');
      assert.match(profile.text, /activez votre compte vendeur avec vos coordonnées bancaires ci-dessous/);
      assert.doesNotMatch(profile.text, /\/account\/selleractivation/);
      for (const path of ['/docs', '/signature-debugger']) {
        assert.equal((await visitor.get(path)).status, 200, path);
      }
    });

    it('keeps the API’s wire: no cookies, XML error bodies, 417 for forms under /ws; HTML 404 elsewhere', async () => {
      const client = await createTestClient(server);
      const form = await client.api.post('/account/coupon', 'couponCode=x', {
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: 'cardbazaar_session=x' },
      });
      assert.equal(form.status, 417);
      assert.match(form.text, /<mkm_error_description>/);
      const account = await client.api.get('/account');
      assert.equal(account.headers['set-cookie'], undefined);
      assert.equal(account.headers['access-control-allow-origin'], '*');
      const missing = await server.app.inject({ url: '/ws/v2.0/nothing-here' });
      assert.equal(missing.statusCode, 404);
      assert.match(missing.headers['content-type'] as string, /application\/xml/);
      const page = await server.app.inject({ url: '/nothing-here', headers: { 'accept-language': 'fr' } });
      assert.equal(page.statusCode, 404);
      assert.match(page.headers['content-type'] as string, /text\/html/);
      assert.match(page.body, /Page introuvable/);
      assert.equal(page.headers['access-control-allow-origin'], undefined);
      const profile = await server.app.inject({ url: '/profile' });
      assert.equal(profile.headers['access-control-allow-origin'], undefined);
      assert.equal(profile.headers['cache-control'], 'no-store');
      assert.equal(BASE.startsWith('http://'), true);
    });
  });
}

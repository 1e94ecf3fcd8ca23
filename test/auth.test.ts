import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createAccessToken, revokeAccessTokenById, revokeAppById } from '../src/auth/apps.js';
import {
  ApiClient,
  BASE,
  countRows,
  createTestApp,
  createTestClient,
  createTestUser,
  DIALECTS,
  signedHeader,
  startTestServer,
  type TestCredentials,
  type TestServer,
} from './helpers.js';

/**
 * Builds an Authorization header by hand, independently of the server's code, so each tolerance
 * (order, spacing, encoding, realm placement) can be produced exactly as some real client does.
 */
function enc(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

interface HandOptions {
  method?: string;
  /** The URL as signed (scheme, host, path). */
  url: string;
  /** Query parameters exactly as signed, already decoded. */
  signedQuery?: Array<[string, string]>;
  nonce?: string;
  timestamp?: number;
  token?: string;
  tokenSecret?: string;
}

function handSign(cred: TestCredentials, o: HandOptions) {
  const params: Array<[string, string]> = [
    ['oauth_consumer_key', cred.appToken],
    ['oauth_token', o.token ?? cred.accessToken],
    ['oauth_nonce', o.nonce ?? Math.random().toString(36).slice(2)],
    ['oauth_timestamp', String(o.timestamp ?? Math.floor(Date.now() / 1000))],
    ['oauth_signature_method', 'HMAC-SHA1'],
    ['oauth_version', '1.0'],
  ];
  const all = [...params, ...(o.signedQuery ?? [])]
    .map(([k, v]) => [enc(k), enc(v)] as [string, string])
    .sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : 1) : a[0] < b[0] ? -1 : 1));
  const base = `${o.method ?? 'GET'}&${enc(o.url)}&${enc(all.map(([k, v]) => `${k}=${v}`).join('&'))}`;
  const key = `${enc(cred.appSecret)}&${enc(o.tokenSecret ?? cred.accessTokenSecret)}`;
  const signature = createHmac('sha1', key).update(base).digest('base64');
  return { params: Object.fromEntries(params) as Record<string, string>, signature, base };
}

for (const dialect of DIALECTS) {
  describe(`OAuth verification (${dialect})`, () => {
    let server: TestServer;
    let api: ApiClient;
    let cred: TestCredentials;
    before(async () => {
      server = await startTestServer({ dialect });
      ({ api, cred } = await createTestClient(server));
    });
    after(() => server.close());

    const url = `${BASE}/ws/v2.0/output.json/account`;
    const send = (authorization: string, path = '/ws/v2.0/output.json/account', method = 'GET') =>
      server.app.inject({
        method: method as 'GET',
        url: path,
        headers: { host: 'api.cardbazaar.test', authorization },
      });

    it('accepts a request signed by an independent OAuth library', async () => {
      const res = await api.get('/account', { json: true });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.account.idUser, cred.idUser);
    });

    it('answers every request of a client that arrive together before its credentials are cached', async () => {
      // They share one lookup of the app and one of the token; each is still verified on its own.
      const { cred: c } = await createTestClient(server);
      const good = await Promise.all(Array.from({ length: 20 }, () => send(signedHeader(c, 'GET', url))));
      assert.deepEqual(
        good.map((r) => r.statusCode),
        good.map(() => 200),
      );
      const { cred: c2 } = await createTestClient(server);
      const mixed = await Promise.all([
        send(signedHeader(c2, 'GET', url)),
        send(signedHeader({ ...c2, accessTokenSecret: 'wrong' }, 'GET', url)),
        send(signedHeader({ ...c2, accessToken: 'NoSuchAccessToken000000000000000' }, 'GET', url)),
        send(signedHeader(c2, 'GET', url)),
      ]);
      assert.deepEqual(
        mixed.map((r) => [
          r.statusCode,
          r.statusCode === 200 ? null : JSON.parse(r.body).internal_error_code,
        ]),
        [
          [200, null],
          [401, 'invalid_signature'],
          [401, 'unknown_access_token'],
          [200, null],
        ],
      );
    });

    describe('tolerates what correct clients send', () => {
      it('parameters in any order, with or without spaces after commas', async () => {
        const { params, signature } = handSign(cred, { url });
        const parts = [
          `oauth_signature="${signature}"`,
          ...Object.entries(params)
            .reverse()
            .map(([k, v]) => `${k}="${v}"`),
          `realm="${url}"`,
        ];
        assert.equal((await send(`OAuth ${parts.join(',')}`)).statusCode, 200);
        const again = handSign(cred, { url });
        const parts2 = [
          `realm="${url}"`,
          ...Object.entries(again.params).map(([k, v]) => `${k}="${v}"`),
          `oauth_signature="${again.signature}"`,
        ];
        assert.equal((await send(`OAuth ${parts2.join(',   ')}`)).statusCode, 200);
      });

      it('a signature raw or percent-encoded, a realm raw or percent-encoded', async () => {
        for (const [encodeSig, encodeRealm] of [
          [false, false],
          [true, false],
          [false, true],
          [true, true],
        ]) {
          let h = handSign(cred, { url });
          // find a signature with characters that need encoding so the test means something
          while (!/[+/=]/.test(h.signature)) h = handSign(cred, { url });
          const sig = encodeSig ? enc(h.signature) : h.signature;
          const realm = encodeRealm ? enc(url) : url;
          const header = `OAuth realm="${realm}", ${Object.entries(h.params)
            .map(([k, v]) => `${k}="${v}"`)
            .join(', ')}, oauth_signature="${sig}"`;
          const res = await send(header);
          assert.equal(res.statusCode, 200, `${encodeSig} ${encodeRealm} ${res.body}`);
        }
      });

      it('ignores non-oauth parameters in the header', async () => {
        const h = handSign(cred, { url });
        const header = `OAuth realm="${url}", x_custom="1", ${Object.entries(h.params)
          .map(([k, v]) => `${k}="${v}"`)
          .join(', ')}, oauth_signature="${h.signature}"`;
        assert.equal((await send(header)).statusCode, 200);
      });

      it('query strings with + or %20 for a space, and a + signed literally', async () => {
        const signed: Array<[string, string]> = [['q', 'black lotus']];
        for (const raw of ['q=black+lotus', 'q=black%20lotus']) {
          const h = handSign(cred, { url, signedQuery: signed });
          const header = `OAuth realm="${url}", ${Object.entries(h.params)
            .map(([k, v]) => `${k}="${v}"`)
            .join(', ')}, oauth_signature="${h.signature}"`;
          assert.equal((await send(header, `/ws/v2.0/output.json/account?${raw}`)).statusCode, 200, raw);
        }
        const literal = handSign(cred, { url, signedQuery: [['q', 'black+lotus']] });
        const header = `OAuth realm="${url}", ${Object.entries(literal.params)
          .map(([k, v]) => `${k}="${v}"`)
          .join(', ')}, oauth_signature="${literal.signature}"`;
        assert.equal((await send(header, '/ws/v2.0/output.json/account?q=black+lotus')).statusCode, 200);
      });

      it('repeated query keys', async () => {
        const res = await api.get('/account?sellerCountry=7&sellerCountry=12&sellerCountry=2', {
          json: true,
        });
        assert.equal(res.status, 200, res.text);
      });

      it('the public URL behind a reverse proxy (PUBLIC_BASE_URL)', async () => {
        const proxied = await startTestServer({
          dialect,
          config: { publicBaseUrl: 'https://public.example.org' },
        });
        try {
          const { cred: c } = await createTestClient(proxied);
          const publicUrl = 'https://public.example.org/ws/v2.0/account';
          const res = await proxied.app.inject({
            method: 'GET',
            url: '/ws/v2.0/account',
            headers: { host: '127.0.0.1:8080', authorization: signedHeader(c, 'GET', publicUrl) },
          });
          assert.equal(res.statusCode, 200, res.body);
        } finally {
          await proxied.close();
        }
      });

      it('X-Forwarded-Proto and X-Forwarded-Host when TRUST_PROXY is on, and not when it is off', async () => {
        const publicUrl = 'https://edge.example.org/ws/v2.0/account';
        for (const trustProxy of [true, false]) {
          const s = await startTestServer({ dialect, config: { trustProxy } });
          try {
            const { cred: c } = await createTestClient(s);
            const res = await s.app.inject({
              method: 'GET',
              url: '/ws/v2.0/account',
              headers: {
                host: '10.0.0.5:8080',
                'x-forwarded-proto': 'https',
                'x-forwarded-host': 'edge.example.org',
                authorization: signedHeader(c, 'GET', publicUrl),
              },
            });
            assert.equal(res.statusCode, trustProxy ? 200 : 401, `${trustProxy}: ${res.body}`);
          } finally {
            await s.close();
          }
        }
      });
    });

    describe('refuses with 401 and says which check failed', () => {
      const check = async (res: { statusCode: number; body: string }, code: string, text: RegExp) => {
        assert.equal(res.statusCode, 401, res.body);
        const body = JSON.parse(res.body);
        assert.equal(body.internal_error_code, code);
        assert.match(body.mkm_error_description, text);
        assert.doesNotMatch(res.body, new RegExp(cred.appSecret));
        assert.doesNotMatch(res.body, new RegExp(cred.accessTokenSecret));
      };

      it('no Authorization header', async () => {
        await check(await send(''), 'missing_header', /Authorization header missing/);
      });

      it('an unknown app token', async () => {
        const other = { ...cred, appToken: 'NoSuchAppToken000000' };
        await check(await send(signedHeader(other, 'GET', url)), 'unknown_app_token', /Unknown app token/);
      });

      it('an unknown access token', async () => {
        const other = { ...cred, accessToken: 'NoSuchAccessToken000000000000000' };
        await check(
          await send(signedHeader(other, 'GET', url)),
          'unknown_access_token',
          /Unknown access token/,
        );
      });

      it('a revoked access token and a revoked app', async () => {
        const { cred: c } = await createTestClient(server);
        const client = new ApiClient(server, c);
        assert.equal((await client.get('/account')).status, 200);
        const token = await server.services.database.db
          .selectFrom('accessTokens')
          .selectAll()
          .where('idApp', '=', c.idApp)
          .executeTakeFirstOrThrow();
        await revokeAccessTokenById(server.services, token.idAccessToken);
        await check(await send(signedHeader(c, 'GET', url)), 'revoked_access_token', /revoked/);
        const { cred: c2 } = await createTestClient(server);
        await revokeAppById(server.services, c2.idApp);
        await check(await send(signedHeader(c2, 'GET', url)), 'revoked_app', /revoked/);
      });

      it('a bad signature, showing the base string in the sandbox', async () => {
        const res = await send(signedHeader(cred, 'GET', `${BASE}/ws/v2.0/output.json/accountX`));
        await check(res, 'invalid_signature', /Invalid signature/);
        const base = `GET&${enc(url)}&`;
        assert.ok(String(res.headers['x-oauth-base-string']).startsWith(base));
        assert.ok(JSON.parse(res.body).mkm_error_description.includes(base));
      });

      it('a bad signature in production mode, without the base string', async () => {
        const prod = await startTestServer({
          dialect,
          config: { mode: 'production', publicBaseUrl: BASE },
        });
        try {
          const { cred: c } = await createTestClient(prod);
          const res = await prod.app.inject({
            method: 'GET',
            url: '/ws/v2.0/output.json/account',
            headers: {
              host: 'api.cardbazaar.test',
              authorization: signedHeader(c, 'GET', `${BASE}/ws/v2.0/output.json/other`),
            },
          });
          assert.equal(res.statusCode, 401);
          assert.equal(res.headers['x-oauth-base-string'], undefined);
          assert.equal(JSON.parse(res.body).mkm_error_description, 'Invalid signature.');
        } finally {
          await prod.close();
        }
      });

      it('a stale timestamp, both ways', async () => {
        for (const skew of [-16 * 60, 16 * 60]) {
          const h = handSign(cred, { url, timestamp: Math.floor(Date.now() / 1000) + skew });
          const header = `OAuth realm="${url}", ${Object.entries(h.params)
            .map(([k, v]) => `${k}="${v}"`)
            .join(', ')}, oauth_signature="${h.signature}"`;
          await check(await send(header), 'stale_timestamp', /oauth_timestamp/);
        }
        const ok = handSign(cred, { url, timestamp: Math.floor(Date.now() / 1000) - 14 * 60 });
        const header = `OAuth realm="${url}", ${Object.entries(ok.params)
          .map(([k, v]) => `${k}="${v}"`)
          .join(', ')}, oauth_signature="${ok.signature}"`;
        assert.equal((await send(header)).statusCode, 200);
      });

      it('a reused nonce', async () => {
        const header = signedHeader(cred, 'GET', url);
        assert.equal((await send(header)).statusCode, 200);
        await check(await send(header), 'reused_nonce', /nonce/);
      });

      it('a nonce over 64 characters or an OAuth value over 512, correctly signed, before anything is stored', async () => {
        const header = (h: ReturnType<typeof handSign>, extra = '') =>
          `OAuth realm="${url}", ${Object.entries(h.params)
            .map(([k, v]) => `${k}="${enc(v)}"`)
            .join(', ')}${extra}, oauth_signature="${enc(h.signature)}"`;
        const nonces = await countRows(server, 'oauthNonces');
        await check(
          await send(header(handSign(cred, { url, nonce: 'n'.repeat(65) }))),
          'malformed_header',
          /oauth_nonce.*64/,
        );
        await check(
          await send(header(handSign(cred, { url, nonce: 'n'.repeat(5000) }))),
          'malformed_header',
          /oauth_nonce.*64/,
        );
        // An unsigned extra oauth_ parameter is still bounded: the server keeps no more than it must.
        await check(
          await send(header(handSign(cred, { url }), `, oauth_callback="${'c'.repeat(513)}"`)),
          'malformed_header',
          /oauth_callback.*512/,
        );
        assert.equal(await countRows(server, 'oauthNonces'), nonces);
        // The bounds themselves are allowed.
        assert.equal((await send(header(handSign(cred, { url, nonce: 'n'.repeat(64) })))).statusCode, 200);
      });

      it('a missing realm, a missing oauth_token and another signature method', async () => {
        const h = handSign(cred, { url });
        const params = Object.entries(h.params).map(([k, v]) => `${k}="${v}"`);
        await check(
          await send(`OAuth ${params.join(', ')}, oauth_signature="${h.signature}"`),
          'missing_parameter',
          /realm/,
        );
        const noToken = params.filter((p) => !p.startsWith('oauth_token='));
        await check(
          await send(`OAuth realm="${url}", ${noToken.join(', ')}, oauth_signature="${h.signature}"`),
          'missing_parameter',
          /oauth_token/,
        );
        const sha256 = params.map((p) => p.replace('HMAC-SHA1', 'HMAC-SHA256'));
        await check(
          await send(`OAuth realm="${url}", ${sha256.join(', ')}, oauth_signature="${h.signature}"`),
          'unsupported_signature_method',
          /HMAC-SHA1/,
        );
      });
    });

    describe('app kinds', () => {
      it('widget apps sign with an empty token and get 403 on account resources', async () => {
        const user = await createTestUser(server);
        const widget = await createTestApp(server, user, 'widget');
        const client = new ApiClient(server, widget);
        const res = await client.get('/account', { json: true });
        assert.equal(res.status, 403, res.text);
        assert.equal(res.json.internal_error_code, 'app_kind_not_allowed');
        assert.match(String(signedHeader(widget, 'GET', url)), /oauth_token=""/);
      });

      it('widget apps that send an access token are refused', async () => {
        const user = await createTestUser(server);
        const widget = await createTestApp(server, user, 'widget');
        const res = await send(
          signedHeader({ ...widget, accessToken: 'x', accessTokenSecret: 'y' }, 'GET', url),
        );
        assert.equal(res.statusCode, 401);
      });

      it('third-party apps act for the user their token belongs to, and logout revokes the token', async () => {
        const owner = await createTestUser(server, { accountType: 'professional' });
        const app = await createTestApp(server, owner, 'thirdParty');
        const customer = await createTestUser(server);
        const issued = await createAccessToken(server.services, {
          idApp: app.idApp,
          idUser: customer.idUser,
        });
        const client = new ApiClient(server, {
          ...app,
          accessToken: issued.token,
          accessTokenSecret: issued.secret,
        });
        const res = await client.get('/account', { json: true });
        assert.equal(res.status, 200, res.text);
        assert.equal(res.json.account.idUser, customer.idUser);
        const out = await client.post('/account/logout', undefined, { json: true });
        assert.equal(out.status, 200);
        assert.deepEqual(out.json, { logout: 'successful' });
        assert.equal((await client.get('/account')).status, 401);
      });

      it('/authenticate/:appToken answers 403 for dedicated and widget apps, 404 for unknown tokens', async () => {
        const user = await createTestUser(server);
        const widget = await createTestApp(server, user, 'widget');
        const third = await createTestApp(server, user, 'thirdParty');
        const open = (token: string, lang = '') =>
          server.app.inject({ method: 'GET', url: `/ws/v2.0/output.json/authenticate/${token}${lang}` });
        for (const token of [cred.appToken, widget.appToken]) {
          const res = await open(token);
          assert.equal(res.statusCode, 403, res.body);
          assert.equal(JSON.parse(res.body).internal_error_code, 'app_kind_not_allowed');
        }
        assert.equal((await open(cred.appToken, '/de')).statusCode, 403);
        assert.equal((await open('NoSuchApp')).statusCode, 404);
        assert.equal((await open(third.appToken, '/xx')).statusCode, 404);
        const thirdParty = await open(third.appToken, '/en');
        // A third-party app's browser goes on to the website's consent page (test/website.test.ts).
        assert.equal(thirdParty.statusCode, 303);
        assert.equal(thirdParty.headers.location, `/authorize/${third.appToken}?lang=en`);
      });

      it('dedicated apps get 403 on the third-party-only logout', async () => {
        const res = await api.post('/account/logout', undefined, { json: true });
        assert.equal(res.status, 403);
      });
    });
  });
}

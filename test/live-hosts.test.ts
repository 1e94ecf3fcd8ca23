import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { explainSignature } from '../src/auth/explain.js';
import { testConfig } from '../src/config.js';
import { liveHostOrigins, MOVED_BODY } from '../src/http/live-hosts.js';
import {
  BASE,
  createTestClient,
  DIALECTS,
  HOST,
  oauthClient,
  signedHeader,
  startTestServer,
  type TestCredentials,
  type TestServer,
  xmlRequest,
} from './helpers.js';
import { flushRequestLog } from './request-log.test.js';
import { createCoupon } from '../src/domain/account.js';
import { findCoupon } from '../src/store/coupons.js';

/**
 * Clients with the live host built in (README, "Clients with the live host built in"): requests
 * signed for `https://<live host>/ws/…` verify in the sandbox, through the real HTTP stack (inject,
 * with the Host header such a client sends), each signed by the independent library (`oauth-1.0a`).
 */

const LIVE = 'https://apiv2.cardmarket.com';

interface Sent {
  status: number;
  text: string;
  headers: Record<string, unknown>;
  json: any;
}

/** `method path` sent to the server with this Host, signed for `signUrl`. */
async function send(
  server: TestServer,
  cred: TestCredentials,
  method: string,
  path: string,
  options: { host?: string; signUrl: string; body?: string; contentType?: string; authorization?: string },
): Promise<Sent> {
  const headers: Record<string, string> = {
    host: options.host ?? HOST,
    authorization: options.authorization ?? signedHeader(cred, method, options.signUrl),
  };
  if (options.body !== undefined) headers['content-type'] = options.contentType ?? 'application/xml';
  const res = await server.app.inject({ method: method as 'GET', url: path, headers, payload: options.body });
  const json = String(res.headers['content-type'] ?? '').startsWith('application/json')
    ? JSON.parse(res.body)
    : undefined;
  return { status: res.statusCode, text: res.body, headers: res.headers, json };
}

async function logRows(server: TestServer, idUser: number) {
  await flushRequestLog(server);
  return server.services.database.db
    .selectFrom('requestLog')
    .selectAll()
    .where('idUser', '=', idUser)
    .orderBy('idRequest')
    .execute();
}

for (const dialect of DIALECTS) {
  describe(`live-host signatures (${dialect})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ dialect });
    });
    after(() => server.close());

    it('accepts a request addressed to a live host and signed for it (https, no port), in XML and JSON, and logs the host', async () => {
      const { user, cred } = await createTestClient(server);
      const xml = await send(server, cred, 'GET', '/ws/v2.0/account', {
        host: 'apiv2.cardmarket.com:8443',
        signUrl: `${LIVE}/ws/v2.0/account`,
      });
      assert.equal(xml.status, 200, xml.text);
      assert.match(xml.text, new RegExp(`<idUser>${user.idUser}</idUser>`));
      const json = await send(server, cred, 'GET', '/ws/v2.0/output.json/account', {
        host: 'apiv2.cardmarket.com',
        signUrl: `${LIVE}/ws/v2.0/output.json/account`,
      });
      assert.equal(json.status, 200, json.text);
      assert.equal(json.json.account.username, user.username);
      // The query is signed as always.
      const games = await send(server, cred, 'GET', '/ws/v2.0/output.json/games?lang=de', {
        host: 'apiv2.cardmarket.com',
        signUrl: `${LIVE}/ws/v2.0/output.json/games?lang=de`,
      });
      assert.equal(games.status, 200, games.text);

      const rows = await logRows(server, user.idUser);
      assert.deepEqual(
        rows.map((r) => [r.status, r.signedOver]),
        [
          [200, LIVE],
          [200, LIVE],
          [200, LIVE],
        ],
      );
    });

    it('tries each live host when the server was addressed under its own name, and logs which one verified', async () => {
      const { user, cred } = await createTestClient(server);
      for (const origin of [
        'https://api.cardmarket.com',
        'https://sandbox.cardmarket.com',
        'https://www.mkmapi.eu',
        'https://sandbox.mkmapi.eu',
        LIVE,
      ]) {
        const res = await send(server, cred, 'GET', '/ws/v2.0/output.json/account', {
          signUrl: `${origin}/ws/v2.0/output.json/account`,
        });
        assert.equal(res.status, 200, `${origin}: ${res.text}`);
        assert.equal(res.json.account.idUser, user.idUser);
      }
      // The server's own URL verifies as it always did, and is logged as no live host.
      const own = await send(server, cred, 'GET', '/ws/v2.0/output.json/account', {
        signUrl: `${BASE}/ws/v2.0/output.json/account`,
      });
      assert.equal(own.status, 200);
      // A request addressed to a live host but signed for the server's own URL still verifies.
      const ownViaLive = await send(server, cred, 'GET', '/ws/v2.0/output.json/account', {
        host: 'api.cardmarket.com',
        signUrl: 'http://api.cardmarket.com/ws/v2.0/output.json/account',
      });
      assert.equal(ownViaLive.status, 200, ownViaLive.text);
      const rows = await logRows(server, user.idUser);
      assert.deepEqual(
        rows.map((r) => r.signedOver),
        [
          'https://api.cardmarket.com',
          'https://sandbox.cardmarket.com',
          'https://www.mkmapi.eu',
          'https://sandbox.mkmapi.eu',
          LIVE,
          null,
          null,
        ],
      );
    });

    it('refuses what a live host does not make valid: another host, http, a port, another path; the 401 names the hosts tried', async () => {
      const { cred } = await createTestClient(server);
      for (const signUrl of [
        'https://cardmarket.example.test/ws/v2.0/output.json/account',
        'http://apiv2.cardmarket.com/ws/v2.0/output.json/account',
        'https://apiv2.cardmarket.com:8443/ws/v2.0/output.json/account',
        'https://apiv2.cardmarket.com/ws/v2.0/output.json/games',
      ]) {
        const res = await send(server, cred, 'GET', '/ws/v2.0/output.json/account', {
          host: 'apiv2.cardmarket.com:8443',
          signUrl,
        });
        assert.equal(res.status, 401, signUrl);
        assert.equal(res.json.internal_error_code, 'invalid_signature');
        assert.match(
          res.json.mkm_error_description,
          /live hosts in LIVE_HOSTS: https:\/\/apiv2\.cardmarket\.com, /,
        );
        // What the server checked first (the addressed live host) is what the sandbox shows.
        assert.match(
          String(res.headers['x-oauth-base-string']),
          /^GET&https%3A%2F%2Fapiv2\.cardmarket\.com%2Fws%2Fv2\.0%2Foutput\.json%2Faccount&/,
        );
      }
    });

    it('keeps the nonce rule across hosts: a request replayed under another name is refused', async () => {
      const { cred } = await createTestClient(server);
      const authorization = signedHeader(cred, 'GET', `${LIVE}/ws/v2.0/output.json/account`);
      const first = await send(server, cred, 'GET', '/ws/v2.0/output.json/account', {
        host: 'apiv2.cardmarket.com',
        signUrl: '',
        authorization,
      });
      assert.equal(first.status, 200);
      for (const host of ['apiv2.cardmarket.com', HOST, '127.0.0.1:8080']) {
        const again = await send(server, cred, 'GET', '/ws/v2.0/output.json/account', {
          host,
          signUrl: '',
          authorization,
        });
        assert.equal(again.status, 401, host);
        assert.equal(again.json.internal_error_code, 'reused_nonce');
      }
    });

    it("reads a PHP client's POST: XML declared as a form, signed without the body (how it signs), over the live host", async () => {
      const { user, cred } = await createTestClient(server);
      const code = await createCoupon(server.services, 250);
      const body = xmlRequest(`<couponCode>${code}</couponCode>`);
      const url = `${LIVE}/ws/v2.0/output.json/account/coupon`;
      // The PHP SDK signs the URL and its oauth_* parameters only: curl posts a string, which no
      // OAuth signer of such a client reads as form parameters.
      const oauth = oauthClient(cred, url);
      const unsigned = oauth.toHeader(
        oauth.authorize({ url, method: 'POST' }, { key: cred.accessToken, secret: cred.accessTokenSecret }),
      ).Authorization;
      const res = await send(server, cred, 'POST', '/ws/v2.0/output.json/account/coupon', {
        host: 'apiv2.cardmarket.com',
        signUrl: '',
        authorization: unsigned,
        body,
        contentType: 'application/x-www-form-urlencoded',
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.coupon[0].successful, true);
      assert.equal((await findCoupon(server.services.database.db, code))?.redeemedBy, user.idUser);

      // RFC 5849 §3.4.1.3.1 read to the letter would add the body's form-decoded pairs: the live
      // service never signs a body, and neither does the sandbox, so such a signature is refused.
      const other = await createCoupon(server.services, 250);
      const otherBody = xmlRequest(`<couponCode>${other}</couponCode>`);
      const data = Object.fromEntries(new URLSearchParams(otherBody));
      assert.ok(Object.keys(data).length > 0);
      const withBody = oauth.toHeader(
        oauth.authorize(
          { url, method: 'POST', data },
          { key: cred.accessToken, secret: cred.accessTokenSecret },
        ),
      ).Authorization;
      const refused = await send(server, cred, 'POST', '/ws/v2.0/output.json/account/coupon', {
        host: 'apiv2.cardmarket.com',
        signUrl: '',
        authorization: withBody,
        body: otherBody,
        contentType: 'application/x-www-form-urlencoded',
      });
      assert.equal(refused.status, 401);
      assert.equal(refused.json.internal_error_code, 'invalid_signature');
      assert.equal((await findCoupon(server.services.database.db, other))?.redeemedBy, null);
    });
  });
}

describe('live-host signatures, turned off', () => {
  const cases: Array<[string, Parameters<typeof startTestServer>[0]]> = [
    ['LIVE_HOSTS empty', { config: { liveHosts: [] } }],
    [
      'production',
      {
        config: {
          mode: 'production',
          publicBaseUrl: BASE,
        },
      },
    ],
  ];
  for (const [name, options] of cases) {
    it(`answers 401 to a request signed for a live host (${name})`, async () => {
      const server = await startTestServer(options);
      try {
        const { cred } = await createTestClient(server);
        for (const host of ['apiv2.cardmarket.com', HOST]) {
          const res = await send(server, cred, 'GET', '/ws/v2.0/output.json/account', {
            host,
            signUrl: `${LIVE}/ws/v2.0/output.json/account`,
          });
          assert.equal(res.status, 401, host);
          // Addressed under a live host's name, it is refused as such in the sandbox; elsewhere (and
          // in production, where the own address is PUBLIC_BASE_URL) the signature is simply wrong.
          assert.equal(
            res.json.internal_error_code,
            host === HOST || name === 'production' ? 'invalid_signature' : 'live_host_not_accepted',
          );
          assert.doesNotMatch(res.json.mkm_error_description, /live hosts in LIVE_HOSTS/);
        }
        const own = await send(server, cred, 'GET', '/ws/v2.0/output.json/account', {
          signUrl: `${BASE}/ws/v2.0/output.json/account`,
        });
        assert.equal(own.status, 200);
      } finally {
        await server.close();
      }
    });
  }

  it('takes only the hosts LIVE_HOSTS names', async () => {
    const server = await startTestServer({ config: { liveHosts: ['mkm.example.test'] } });
    try {
      const { cred } = await createTestClient(server);
      const mine = await send(server, cred, 'GET', '/ws/v2.0/output.json/account', {
        signUrl: 'https://mkm.example.test/ws/v2.0/output.json/account',
      });
      assert.equal(mine.status, 200);
      const live = await send(server, cred, 'GET', '/ws/v2.0/output.json/account', {
        host: 'apiv2.cardmarket.com',
        signUrl: `${LIVE}/ws/v2.0/output.json/account`,
      });
      assert.equal(live.status, 401);
      assert.equal(live.json.internal_error_code, 'live_host_not_accepted');
      assert.match(live.json.mkm_error_description, /LIVE_HOSTS is mkm\.example\.test/);
      // Signed for the server's own address but addressed to a live host: refused all the same.
      const ownSigned = await send(server, cred, 'GET', '/ws/v2.0/output.json/account', {
        host: 'apiv2.cardmarket.com',
        signUrl: 'http://apiv2.cardmarket.com/ws/v2.0/output.json/account',
      });
      assert.equal(ownSigned.status, 401);
    } finally {
      await server.close();
    }
  });
});

describe('the host move, emulated (LIVE_HOST_MOVED)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ config: { liveHostMoved: true } });
  });
  after(() => server.close());

  it('answers 410 with the live sentence for api.cardmarket.com, whatever the path, method or signature', async () => {
    const { cred } = await createTestClient(server);
    for (const [method, path] of [
      ['GET', '/ws/v2.0/output.json/account'],
      ['GET', '/ws/v2.0/output.json/games'],
      ['POST', '/ws/v2.0/output.json/stock'],
      ['OPTIONS', '/ws/v2.0/output.json/account'],
    ] as const) {
      const res = await send(server, cred, method, path, {
        host: 'API.cardmarket.com:443',
        signUrl: `https://api.cardmarket.com${path}`,
      });
      assert.equal(res.status, 410, `${method} ${path}`);
      assert.equal(res.json.mkm_error_description, 'Please switch to https://apiv2.cardmarket.com');
      assert.equal(res.json.mkm_error_description, MOVED_BODY);
      assert.equal(res.json.http_status_code, 410);
      assert.equal(res.json.http_status_code_description, 'Gone');
    }
    const xml = await send(server, cred, 'GET', '/ws/v2.0/account', {
      host: 'api.cardmarket.com',
      signUrl: 'https://api.cardmarket.com/ws/v2.0/account',
    });
    assert.equal(xml.status, 410);
    assert.match(
      xml.text,
      /<mkm_error_description>Please switch to https:\/\/apiv2\.cardmarket\.com<\/mkm_error_description>/,
    );
    // Not only the API: the whole host has moved.
    const page = await server.app.inject({
      method: 'GET',
      url: '/',
      headers: { host: 'api.cardmarket.com' },
    });
    assert.equal(page.statusCode, 410);
    assert.match(page.body, /Please switch to https:\/\/apiv2\.cardmarket\.com/);
  });

  it('serves apiv2 as before, and no longer takes a signature made for the old host', async () => {
    const { cred } = await createTestClient(server);
    const moved = await send(server, cred, 'GET', '/ws/v2.0/output.json/account', {
      host: 'apiv2.cardmarket.com',
      signUrl: `${LIVE}/ws/v2.0/output.json/account`,
    });
    assert.equal(moved.status, 200);
    const old = await send(server, cred, 'GET', '/ws/v2.0/output.json/account', {
      signUrl: 'https://api.cardmarket.com/ws/v2.0/output.json/account',
    });
    assert.equal(old.status, 401);
    assert.doesNotMatch(old.json.mkm_error_description, /https:\/\/api\.cardmarket\.com/);
  });

  it('is off by default and refused in production', async () => {
    const plain = await startTestServer();
    try {
      const { cred } = await createTestClient(plain);
      const res = await send(plain, cred, 'GET', '/ws/v2.0/output.json/account', {
        host: 'api.cardmarket.com',
        signUrl: 'https://api.cardmarket.com/ws/v2.0/output.json/account',
      });
      assert.equal(res.status, 200);
    } finally {
      await plain.close();
    }
  });
});

describe('the signature debugger and live hosts', () => {
  const cred = { appToken: 'app-token-live', appSecret: 'app-secret-live' };
  const tokens = { key: 'access-live', secret: 'access-secret-live' };
  const header = (url: string) => {
    const oauth = oauthClient(cred, url.split('?')[0]!);
    return oauth.toHeader(oauth.authorize({ url, method: 'GET' }, tokens)).Authorization;
  };
  const explain = (url: string, authorization: string, liveHosts = liveHostOrigins(testConfig())) =>
    explainSignature({
      method: 'GET',
      url,
      authorization,
      consumerSecret: cred.appSecret,
      tokenSecret: tokens.secret,
      liveHosts,
    });

  it('says which live host a signature verified over, with the steps of that URL', () => {
    const signedFor = `${LIVE}/ws/v2.0/articles/1?start=0&maxResults=10`;
    const typed = 'http://127.0.0.1:8080/ws/v2.0/articles/1?start=0&maxResults=10';
    const e = explain(typed, header(signedFor));
    assert.equal(e.verdict, 'valid');
    assert.equal(e.liveHost, LIVE);
    assert.equal(e.origin, LIVE);
    assert.match(e.baseString, /^GET&https%3A%2F%2Fapiv2\.cardmarket\.com%2Fws%2Fv2\.0%2Farticles%2F1&/);
    assert.equal(e.expectedSignature, e.sentSignature);

    const direct = explain(signedFor, header(signedFor));
    assert.equal(direct.verdict, 'valid');
    assert.equal(direct.liveHost, LIVE);

    const own = explain(typed, header(typed));
    assert.equal(own.verdict, 'valid');
    assert.equal(own.liveHost, undefined);

    // Without live hosts (production, or LIVE_HOSTS empty) it is the mismatch it is.
    const off = explain(typed, header(signedFor), []);
    assert.equal(off.verdict, 'mismatch');
    assert.equal(off.liveHost, undefined);
    assert.deepEqual(off.problems, []);
    const offDirect = explain(signedFor, header(signedFor), []);
    assert.equal(offDirect.verdict, 'valid');
    assert.equal(offDirect.liveHost, undefined);
    assert.match(
      offDirect.problems.join(' '),
      /apiv2\.cardmarket\.com is a live host this server does not accept/,
    );
    assert.deepEqual(liveHostOrigins(testConfig({ mode: 'production' })), []);
  });
});

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { type AddressInfo, connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import Fastify from 'fastify';
import { headerLocation } from '../src/http/location.js';
import { errorPage } from '../src/web/index.js';
import { startTestServer, type TestServer } from './helpers.js';
import { textOf, WebClient } from './web-client.js';

/**
 * The smaller findings of issue 31 on the website and the wire: redirects to addresses outside
 * Latin-1, callbacks with a fragment, HSTS, the 404 page's links, the CSRF secret across sign-in
 * and sign-out, and methods a path does not take.
 */

let names = 0;
const uniqueName = (prefix: string) => `${prefix}${++names}${randomBytes(2).toString('hex')}`;
const PASSWORD = 'the right password';

/** One raw HTTP/1.1 exchange (for what `inject` cannot send: a method token Node does not know). */
async function rawExchange(port: number, request: string): Promise<{ head: string; body: string }> {
  const text = await new Promise<string>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (data += chunk));
    socket.on('end', () => resolve(data));
    socket.on('error', reject);
  });
  const at = text.indexOf('\r\n\r\n');
  return { head: text.slice(0, at), body: text.slice(at + 4) };
}

const headerOf = (head: string, name: string) => new RegExp(`^${name}: (.*)$`, 'im').exec(head)?.[1]?.trim();

describe('redirects and callbacks outside Latin-1', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('signs in and goes to a `next` with characters outside Latin-1, percent-encoded', async () => {
    const name = uniqueName('next');
    await new WebClient(server).register(name, PASSWORD);
    const web = new WebClient(server);
    const login = await web.get('/login?next=%2Fprofile%E3%80%82x');
    assert.equal(login.status, 200);
    const res = await web.post('/login', { username: name, password: PASSWORD, next: '/profile\u3002x' });
    assert.equal(res.status, 303, res.text);
    assert.equal(res.location, '/profile%E3%80%82x');
    assert.ok(web.cookies.get('cardbazaar_session'), 'the new session cookie is kept');
    assert.equal((await web.get('/profile')).status, 200);
  });

  it('sends the browser to a callback with such characters, percent-encoded, after consent', async () => {
    const developer = new WebClient(server);
    await developer.register(uniqueName('maker'));
    await developer.get('/profile/apps/new');
    const created = await developer.post('/profile/apps', {
      kind: 'thirdParty',
      name: 'Rückruf',
      callbackUrl: 'https://app.example.org/rückruf/\u3002?q=\u00e9',
    });
    assert.equal(created.status, 303, created.text);
    const idApp = Number(/#app-(\d+)$/.exec(created.location ?? '')?.[1]);
    const profile = await developer.get('/profile');
    const appToken = new RegExp(`id="app-${idApp}"[\\s\\S]*?data-credential="appToken">([^<]+)<`).exec(
      profile.text,
    )?.[1];
    assert.ok(appToken);
    const user = new WebClient(server);
    await user.register(uniqueName('client'), PASSWORD);
    assert.equal((await user.get(`/authorize/${appToken}`)).status, 200);
    const approved = await user.post(`/authorize/${appToken}`, { decision: 'approve' });
    assert.equal(approved.status, 303, approved.text);
    assert.match(
      approved.location!,
      /^https:\/\/app\.example\.org\/r%C3%BCckruf\/%E3%80%82\?q=%C3%A9&request_token=[\w-]+$/,
    );
  });

  it('refuses a callback URL with a fragment, even an empty one, beside the field', async () => {
    const web = new WebClient(server);
    await web.register(uniqueName('frag'));
    for (const callbackUrl of [
      'https://app.example.org/cb#',
      'https://app.example.org/cb#x',
      'https://app.example.org/c b',
    ]) {
      await web.get('/profile/apps/new');
      const res = await web.post('/profile/apps', { kind: 'thirdParty', name: 'Fragment', callbackUrl });
      assert.equal(res.status, 400, callbackUrl);
      assert.match(
        res.text,
        /id="callbackUrl-error">Give a full address such as https:\/\/app\.example\.org\/callback, without a #fragment/,
      );
    }
  });

  it('percent-encodes what a Location header cannot carry, and nothing else', () => {
    assert.equal(headerLocation('/profile?tab=x&y=%20'), '/profile?tab=x&y=%20');
    assert.equal(headerLocation('/a b/\u00e9\u3002'), '/a%20b/%C3%A9%E3%80%82');
    assert.equal(headerLocation('/x\r\nSet-Cookie: a=b'), '/x%0D%0ASet-Cookie:%20a=b');
    assert.equal(headerLocation('/\ud83c\udccf/\ud800'), '/%F0%9F%83%8F/%EF%BF%BD');
  });

  it('answers an error while a page is written with the HTML error page, not JSON', async () => {
    const app = Fastify({ logger: false });
    await app.register(async (pages) => {
      pages.setErrorHandler(errorPage(server.services));
      // A handler whose answer Node refuses to write (a Location it cannot carry).
      pages.get('/broken', async (_request, reply) => reply.code(303).header('Location', '/x\u3002').send());
    });
    const res = await app.inject({ url: '/broken', headers: { 'accept-language': 'de' } });
    await app.close();
    assert.equal(res.statusCode, 500);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.equal(res.headers.location, undefined);
    assert.match(res.body, /<html lang="de">/);
    assert.doesNotMatch(res.body, /"statusCode"/);
  });
});

describe('HSTS', () => {
  for (const [label, config, expected] of [
    ['an https base URL', { publicBaseUrl: 'https://market.example.org' }, 'max-age=31536000'],
    [
      'an https base URL with includeSubDomains',
      { publicBaseUrl: 'https://market.example.org', hstsIncludeSubdomains: true },
      'max-age=31536000; includeSubDomains',
    ],
    ['an http base URL', { publicBaseUrl: 'http://127.0.0.1:8080' }, undefined],
    ['no base URL', {}, undefined],
  ] as const) {
    it(`is on every answer with ${label}${expected ? '' : ': none'}`, async () => {
      const server = await startTestServer({ config });
      try {
        await server.app.listen({ host: '127.0.0.1', port: 0 });
        const port = (server.app.server.address() as AddressInfo).port;
        for (const [method, url] of [
          ['GET', '/'],
          ['GET', '/login'],
          ['GET', '/nowhere'],
          ['GET', '/ws/v2.0/games'],
          ['GET', '/ws/v2.0/nowhere'],
          ['QUERY', '/profile'],
          ['GET', '/healthz'],
        ] as const) {
          const res = await server.app.inject({ method, url });
          assert.equal(res.headers['strict-transport-security'], expected, `${method} ${url}`);
        }
        // And on the answers given before Fastify sees a request.
        const raw = await rawExchange(port, 'FOO /login HTTP/1.1\r\nHost: x\r\n\r\n');
        assert.equal(headerOf(raw.head, 'Strict-Transport-Security'), expected);
        const broken = await rawExchange(port, 'GET /login HTTP/1.1\r\nHost: x\r\nX: a\u0001b\r\n\r\n');
        assert.match(broken.head, /^HTTP\/1\.1 400/);
        assert.equal(headerOf(broken.head, 'Strict-Transport-Security'), expected);
      } finally {
        await server.close();
      }
    });
  }
});

describe('the 404 page, the CSRF secret, and methods a path does not take', () => {
  let server: TestServer;
  let port: number;
  before(async () => {
    server = await startTestServer();
    await server.app.listen({ host: '127.0.0.1', port: 0 });
    port = (server.app.server.address() as AddressInfo).port;
  });
  after(() => server.close());

  it('links the 404 page’s languages on this site only', async () => {
    for (const path of ['//evil.example/x', '/\\evil.example/x', '///evil.example/x']) {
      // Sent as is (a client library would make `//evil.example/x` a host).
      const res = await rawExchange(port, `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      assert.match(res.head, /^HTTP\/1\.1 404/, path);
      const links = [...res.body.matchAll(/href="([^"]*)\?lang=\w\w"/g)].map((m) => m[1]);
      assert.equal(links.length, 5, path);
      for (const href of links) assert.equal(href, '/evil.example/x', path);
    }
  });

  it('renews the CSRF secret at sign-in and at sign-out', async () => {
    const name = uniqueName('csrf');
    await new WebClient(server).register(name, PASSWORD);
    const web = new WebClient(server);
    await web.signIn(name, PASSWORD);
    await web.get('/profile');
    const signedInToken = web.csrf;
    const secretBefore = web.cookies.get('cardbazaar_csrf');
    assert.equal((await web.post('/logout')).status, 303);
    assert.notEqual(web.cookies.get('cardbazaar_csrf'), secretBefore, 'a new secret at sign-out');
    await web.get('/login');
    const signedOutToken = web.csrf;
    const secretSignedOut = web.cookies.get('cardbazaar_csrf');
    const again = await web.post('/login', { username: name, password: PASSWORD, next: '/profile' });
    assert.equal(again.status, 303);
    assert.notEqual(web.cookies.get('cardbazaar_csrf'), secretSignedOut, 'a new secret at sign-in');
    // Neither the token from before sign-out nor the one from the sign-in page works now.
    for (const token of [signedInToken, signedOutToken]) {
      const forged = await web.post('/profile/apps', { _csrf: token, kind: 'dedicated', name: 'old token' });
      assert.equal(forged.status, 403);
    }
    await web.get('/profile/apps/new');
    const fresh = await web.post('/profile/apps', { kind: 'dedicated', name: 'new token' });
    assert.equal(fresh.status, 303, fresh.text);
  });

  it('answers 405 with Allow, before reading the body, for methods a path does not take', async () => {
    const cases: Array<[string, string, string, string]> = [
      // method, url, Allow, body kind
      ['QUERY', '/ws/v2.0/games', 'GET, OPTIONS', 'xml'],
      ['QUERY', '/ws/v2.0/output.json/games', 'GET, OPTIONS', 'json'],
      ['POST', '/ws/v2.0/games', 'GET, OPTIONS', 'xml'],
      ['PROPFIND', '/ws/v2.0/account', 'GET, OPTIONS', 'xml'],
      ['QUERY', '/profile', 'GET', 'html'],
      ['POST', '/profile', 'GET', 'html'],
      ['PUT', '/login', 'GET, POST', 'html'],
      ['QUERY', '/healthz', 'GET', 'xml'],
    ];
    for (const [method, url, allow, kind] of cases) {
      // A body no parser here reads, with no Content-Type or a wrong one: never looked at.
      const res = await server.app.inject({
        method: method as 'GET',
        url,
        payload: '<not xml',
        headers: method === 'PUT' ? { 'content-type': 'text/plain' } : {},
      });
      assert.equal(res.statusCode, 405, `${method} ${url}: ${res.body}`);
      assert.equal(res.headers.allow, allow, `${method} ${url}`);
      if (kind === 'html') {
        assert.match(String(res.headers['content-type']), /^text\/html/);
        assert.match(
          textOf(res.body),
          new RegExp(`This page does not take ${method} requests; it takes ${allow}\\.`),
        );
      } else {
        assert.equal(res.headers['access-control-allow-methods'], allow);
        assert.match(res.body, new RegExp(`${method} is not allowed on this resource`));
        if (kind === 'json') assert.equal(JSON.parse(res.body).mkm_error_description !== undefined, true);
      }
    }
    // A path nobody serves stays a 404, also before its body.
    const nowhere = await server.app.inject({ method: 'QUERY', url: '/nowhere', payload: 'x' });
    assert.equal(nowhere.statusCode, 404);
    assert.match(String(nowhere.headers['content-type']), /^text\/html/);
    const apiNowhere = await server.app.inject({ method: 'QUERY', url: '/ws/v2.0/nowhere', payload: 'x' });
    assert.equal(apiNowhere.statusCode, 404);
  });

  it('answers a method token Node does not know the same way', async () => {
    const page = await rawExchange(port, 'FOO /profile HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nab');
    assert.match(page.head, /^HTTP\/1\.1 405 Method Not Allowed/);
    assert.equal(headerOf(page.head, 'Allow'), 'GET');
    assert.match(headerOf(page.head, 'Content-Type') ?? '', /^text\/html/);
    assert.match(page.body, /FOO is not allowed on this page; it accepts GET\./);
    const api = await rawExchange(port, 'FOO /ws/v2.0/output.json/games HTTP/1.1\r\nHost: x\r\n\r\n');
    assert.match(api.head, /^HTTP\/1\.1 405/);
    assert.equal(headerOf(api.head, 'Allow'), 'GET, OPTIONS');
    assert.equal(headerOf(api.head, 'Access-Control-Allow-Methods'), 'GET, OPTIONS');
    assert.match(JSON.parse(api.body).mkm_error_description, /^FOO is not allowed on this resource/);
    const nowhere = await rawExchange(port, 'FOO /nowhere HTTP/1.1\r\nHost: x\r\n\r\n');
    assert.match(nowhere.head, /^HTTP\/1\.1 404/);
  });
});

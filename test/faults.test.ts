import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { buildApp } from '../src/app.js';
import { testConfig } from '../src/config.js';
import type { ApiError } from '../src/errors.js';
import { createServices } from '../src/services.js';
import { cliOn, listen, productionCliOn, startTwoServers } from './file-servers.js';
import { createProduct } from './fixtures.js';
import {
  countRows,
  createTestApp,
  createTestClient,
  createTestUser,
  DIALECTS,
  type DialectName,
  signedHeader,
  startFileTestServer,
  startTestServer,
  type TestCredentials,
  type TestServer,
  xmlRequest,
} from './helpers.js';
import { articleXml } from './stock-helpers.js';

/**
 * Injected faults (`cardbazaar faults …`), over real HTTP: the command writes the fault into the
 * database beside running servers, and the servers answer as the live service does in that
 * condition, change nothing, and answer normally again once the fault is cleared.
 */

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  ms: number;
}

/** A signed request over a real socket (fetch), as a client program sends it. */
async function call(
  base: string,
  cred: TestCredentials,
  method: string,
  path: string,
  options: { json?: boolean; body?: string } = {},
): Promise<Answer> {
  const url = `${base}/ws/v2.0${options.json ? '/output.json' : ''}${path}`;
  const started = Date.now();
  const res = await fetch(url, {
    method,
    headers: {
      authorization: signedHeader(cred, method, url),
      ...(options.body ? { 'content-type': 'application/xml' } : {}),
    },
    body: options.body,
  });
  return { status: res.status, headers: res.headers, text: await res.text(), ms: Date.now() - started };
}

async function startServer(dialect: DialectName) {
  const server =
    dialect === 'sqlite' ? await startFileTestServer() : await startTestServer({ dialect: 'postgres' });
  return { server, base: await listen(server), databaseUrl: server.services.config.databaseUrl };
}

/** A GET over node:http, reading what arrives of the body: the declared length, the bytes, and whether it was cut. */
function rawGet(
  base: string,
  cred: TestCredentials,
  path: string,
): Promise<{ status: number; contentLength: string | undefined; received: number; aborted: boolean }> {
  const url = `${base}${path}`;
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers: { authorization: signedHeader(cred, 'GET', url) } }, (res) => {
      let received = 0;
      let aborted = false;
      res.on('data', (chunk: Buffer) => (received += chunk.length));
      res.on('aborted', () => (aborted = true));
      res.on('error', () => (aborted = true));
      res.on('close', () =>
        resolve({
          status: res.statusCode!,
          contentLength: res.headers['content-length'],
          received,
          aborted: aborted || !res.complete,
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

const tag = (xml: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];

for (const dialect of DIALECTS) {
  describe(`faults (${dialect})`, () => {
    let server: TestServer;
    let base: string;
    let databaseUrl: string;
    let cred: TestCredentials;
    let username: string;
    let other: TestCredentials;
    let widget: TestCredentials;
    let idProduct: number;
    const cli = (...args: string[]) => cliOn(databaseUrl)(...args);
    const add = async (...args: string[]) => {
      const r = await cli('faults', 'add', ...args);
      assert.equal(r.code, 0, r.err);
      return JSON.parse(r.out) as { idFault: number };
    };
    const clear = async () => assert.equal((await cli('faults', 'clear')).code, 0);

    before(async () => {
      ({ server, base, databaseUrl } = await startServer(dialect));
      let user;
      ({ cred, user } = await createTestClient(server, { accountType: 'private' }));
      username = user.username;
      ({ cred: other } = await createTestClient(server, { accountType: 'private' }));
      widget = await createTestApp(server, await createTestUser(server), 'widget');
      ({ idProduct } = await createProduct(server, { enName: 'Faulted Card' }));
    });
    after(() => server.close());

    it('503 "Slow Down" with Retry-After on the matching path only, in XML and JSON; clearing restores', async () => {
      const fault = await add('--path', '/articles/*', '--status', '503');
      const xml = await call(base, cred, 'GET', `/articles/${idProduct}`);
      assert.equal(xml.status, 503);
      assert.equal(tag(xml.text, 'mkm_error_description'), 'Slow Down');
      assert.equal(tag(xml.text, 'http_status_code'), '503');
      assert.equal(tag(xml.text, 'internal_error_code'), 'rate_limited');
      const retry = Number(xml.headers.get('retry-after'));
      assert.ok(retry >= 1 && retry <= 60, `Retry-After ${retry}`);
      assert.match(xml.headers.get('content-type')!, /^application\/xml/);
      assert.equal(xml.headers.get('access-control-allow-origin'), '*');

      const json = await call(base, cred, 'GET', `/articles/${idProduct}`, { json: true });
      assert.equal(json.status, 503);
      const body = JSON.parse(json.text);
      assert.equal(body.mkm_error_description, 'Slow Down');
      assert.equal(body.http_status_code, 503);
      assert.ok(Number(json.headers.get('retry-after')) >= 1);

      // Another resource, and a path the pattern does not reach, answer as usual.
      assert.equal((await call(base, cred, 'GET', '/account')).status, 200);
      const list = JSON.parse((await cli('faults', 'list')).out);
      assert.equal(list.length, 1);
      assert.equal(list[0].idFault, fault.idFault);
      assert.equal(list[0].path, '/articles/*');
      assert.equal(list[0].status, 503);
      assert.equal(list[0].method, null);
      assert.equal(list[0].rate, 1);

      await clear();
      const again = await call(base, cred, 'GET', `/articles/${idProduct}`, { json: true });
      assert.equal(again.status, 204, again.text); // no offers: the real answer
      assert.deepEqual(JSON.parse((await cli('faults', 'list')).out), []);
    });

    it('429: a dedicated app gets its daily quota refusal with the limit headers; a widget app the concurrency one', async () => {
      await add('--path', '/account', '--status', '429');
      for (const json of [false, true]) {
        const res = await call(base, cred, 'GET', '/account', { json });
        assert.equal(res.status, 429);
        assert.equal(res.headers.get('x-request-limit-max'), '5000');
        assert.equal(res.headers.get('x-request-limit-count'), '5000');
        assert.ok(Number(res.headers.get('retry-after')) >= 1);
        const description = json
          ? JSON.parse(res.text).mkm_error_description
          : tag(res.text, 'mkm_error_description');
        assert.match(description, /^Daily request limit reached: this app may make 5000 requests a day/);
      }
      await clear();
      await add('--path', '/games', '--status', '429');
      const res = await call(base, widget, 'GET', '/games', { json: true });
      assert.equal(res.status, 429);
      assert.equal(res.headers.get('retry-after'), '1');
      assert.equal(res.headers.get('x-request-limit-max'), null);
      assert.equal(JSON.parse(res.text).internal_error_code, 'concurrent_request');
      await clear();
    });

    it('500 names the request id; 400 is the live "currently unavailable"; --description replaces the words', async () => {
      await add('--path', '/account', '--method', 'GET', '--status', '500');
      const res = await call(base, cred, 'GET', '/account', { json: true });
      assert.equal(res.status, 500);
      assert.match(
        JSON.parse(res.text).mkm_error_description,
        /^Internal server error\. .*request id [0-9a-f]+\.$/,
      );
      await clear();

      await add('--path', '/account/messages/find', '--status', '400');
      const xml = await call(base, cred, 'GET', '/account/messages/find?unread=true');
      assert.equal(xml.status, 400);
      assert.equal(tag(xml.text, 'mkm_error_description'), 'This feature is currently unavailable');
      assert.equal(tag(xml.text, 'http_status_code_description'), 'Bad Request');
      await clear();

      await add('--path', '/games', '--status', '503', '--description', 'Maintenance until 14:00');
      const own = await call(base, cred, 'GET', '/games', { json: true });
      assert.equal(own.status, 503);
      assert.equal(JSON.parse(own.text).mkm_error_description, 'Maintenance until 14:00');
      await clear();
    });

    it('--method limits a fault to one method, and a faulted POST changes nothing', async () => {
      await add('--path', '/stock', '--method', 'POST', '--status', '503');
      const before = await countRows(server, 'articles');
      const body = xmlRequest(articleXml({ idProduct, count: 2, price: '1.00' }));
      for (const json of [false, true]) {
        const res = await call(base, cred, 'POST', '/stock', { body, json });
        assert.equal(res.status, 503);
      }
      assert.equal(await countRows(server, 'articles'), before);
      // GET /stock is not faulted
      assert.equal((await call(base, cred, 'GET', '/stock', { json: true })).status, 204);
      await clear();
      const ok = await call(base, cred, 'POST', '/stock', { body, json: true });
      assert.equal(ok.status, 200, ok.text);
      assert.equal(JSON.parse(ok.text).inserted[0].success, true);
      assert.equal(await countRows(server, 'articles'), before + 1);
    });

    it('--drop closes the connection without an answer; --latency delays the answer', async () => {
      await add('--path', '/games', '--drop');
      await assert.rejects(call(base, cred, 'GET', '/games'), /fetch failed/);
      assert.equal((await call(base, cred, 'GET', '/account')).status, 200);
      await clear();

      await add('--path', '/games', '--latency', '400ms');
      const slow = await call(base, cred, 'GET', '/games', { json: true });
      assert.equal(slow.status, 200); // a delay only: the real answer, late
      assert.ok(slow.ms >= 380, `answered after ${slow.ms} ms`);
      await clear();

      await add('--path', '/games', '--latency', '300ms', '--status', '503');
      const both = await call(base, cred, 'GET', '/games');
      assert.equal(both.status, 503);
      assert.ok(both.ms >= 280, `answered after ${both.ms} ms`);
      await clear();
      const fast = await call(base, cred, 'GET', '/games');
      assert.ok(fast.ms < 280, `answered after ${fast.ms} ms`);
    });

    it('--rate hits that share of requests, the same ones again with the same --seed', async () => {
      const run = async () => {
        await add('--path', '/games', '--status', '503', '--rate', '0.2', '--seed', '42');
        const hits: boolean[] = [];
        for (let i = 0; i < 200; i++) hits.push((await call(base, cred, 'GET', '/games')).status === 503);
        await clear();
        return hits;
      };
      const first = await run();
      const n = first.filter(Boolean).length;
      // Binomial(200, 0.2): mean 40, standard deviation about 5.7.
      assert.ok(n >= 20 && n <= 60, `${n} of 200 hit`);
      assert.deepEqual(await run(), first);
    });

    it('any status from 400 to 599, worded as the live service does; Retry-After only where it belongs', async () => {
      const cases: Array<[number, RegExp, string | null]> = [
        [401, /^Invalid signature\.$/, null],
        [403, /blocked/, null],
        [404, /^There is no resource at GET \/ws\/v2\.0\/games\.$/, null],
        [405, /^GET is not allowed on this resource; it accepts GET, OPTIONS\.$/, null],
        [418, /^I'm a Teapot$/i, null],
        [502, /^Bad Gateway/, null],
        [504, /^Gateway Timeout/, null],
        [599, /Error/, null],
      ];
      for (const [status, words] of cases) {
        await add('--path', '/games', '--status', String(status));
        const res = await call(base, cred, 'GET', '/games', { json: true });
        assert.equal(res.status, status, res.text);
        const body = JSON.parse(res.text);
        assert.equal(body.http_status_code, status);
        assert.match(body.mkm_error_description, words, `${status}: ${body.mkm_error_description}`);
        assert.ok(body.http_status_code_description, `${status} has a status description`);
        assert.equal(res.headers.get('retry-after'), null, `${status} carries no Retry-After`);
        if (status === 405) assert.equal(res.headers.get('allow'), 'GET, OPTIONS');
        await clear();
      }
      const xml = await (async () => {
        await add('--path', '/games', '--status', '502');
        const r = await call(base, cred, 'GET', '/games');
        await clear();
        return r;
      })();
      assert.equal(xml.status, 502);
      assert.equal(tag(xml.text, 'http_status_code_description'), 'Bad Gateway');
    });

    it('--times N hits exactly the next N matching requests, even when they arrive together', async () => {
      const usual = (await call(base, cred, 'GET', '/stock', { json: true })).status;
      const fault = await add('--path', '/stock', '--method', 'GET', '--status', '502', '--times', '2');
      const seen: number[] = [];
      for (let i = 0; i < 3; i++) seen.push((await call(base, cred, 'GET', '/stock', { json: true })).status);
      assert.deepEqual(seen, [502, 502, usual]);
      const listed = JSON.parse((await cli('faults', 'list')).out);
      assert.equal(listed[0].idFault, fault.idFault);
      assert.equal(listed[0].times, 2);
      assert.equal(listed[0].remaining, 0);
      await clear();

      await add('--path', '/games', '--status', '503', '--times', '5');
      const answers = await Promise.all(
        Array.from({ length: 30 }, () => call(base, cred, 'GET', '/games', { json: true })),
      );
      assert.equal(answers.filter((a) => a.status === 503).length, 5);
      assert.equal(answers.filter((a) => a.status === 200).length, 25);
      await clear();
    });

    it('--app and --user narrow a fault to one app or one user', async () => {
      await add('--path', '/account', '--status', '500', '--app', cred.appToken);
      assert.equal((await call(base, cred, 'GET', '/account')).status, 500);
      assert.equal((await call(base, other, 'GET', '/account')).status, 200);
      await clear();
      await add('--path', '/account', '--status', '403', '--user', username);
      assert.equal((await call(base, cred, 'GET', '/account')).status, 403);
      assert.equal((await call(base, other, 'GET', '/account')).status, 200);
      // A widget app acts for nobody: a user's fault never reaches it.
      assert.equal((await call(base, widget, 'GET', '/games')).status, 200);
      const listed = JSON.parse((await cli('faults', 'list')).out);
      assert.equal(listed[0].user, username);
      assert.equal(listed[0].app, null);
      await clear();
    });

    it('--expires-in ends a fault on the marketplace clock', async () => {
      // The test server's clock stands still where it started; the command's is the real one.
      const started = server.clock.now();
      await add('--path', '/games', '--status', '503', '--expires-in', '2h');
      const listed = JSON.parse((await cli('faults', 'list')).out);
      assert.equal(Date.parse(listed[0].expiresAt) - Date.parse(listed[0].createdAt), 2 * 3_600_000);
      try {
        server.clock.set(Date.now() + 3_600_000);
        assert.equal((await call(base, cred, 'GET', '/games')).status, 503);
        server.clock.set(Date.now() + 2 * 3_600_000 + 60_000);
        assert.equal((await call(base, cred, 'GET', '/games')).status, 200);
      } finally {
        server.clock.set(started);
      }
      await clear();
    });

    it('--body truncated cuts the answer short of its Content-Length and closes; malformed sends half a document', async () => {
      const full = await call(base, cred, 'GET', '/account', { json: true });
      assert.equal(full.status, 200);
      await add('--path', '/account', '--body', 'truncated');
      const raw = await rawGet(base, cred, '/ws/v2.0/output.json/account');
      assert.equal(raw.status, 200);
      assert.equal(Number(raw.contentLength), Buffer.byteLength(full.text));
      assert.ok(raw.received < Number(raw.contentLength), `${raw.received} of ${raw.contentLength} bytes`);
      assert.ok(raw.aborted, 'the connection closed mid-body');
      await clear();

      await add('--path', '/account', '--body', 'malformed');
      for (const json of [true, false]) {
        const res = await call(base, cred, 'GET', '/account', { json });
        assert.equal(res.status, 200);
        assert.equal(Number(res.headers.get('content-length')), Buffer.byteLength(res.text));
        if (json) assert.throws(() => JSON.parse(res.text));
        else assert.doesNotMatch(res.text, /<\/response>\s*$/);
        assert.ok(res.text.length > 0);
      }
      await clear();

      // With a status, the error body is the one spoiled.
      await add('--path', '/games', '--status', '503', '--body', 'malformed');
      const spoiled = await call(base, cred, 'GET', '/games', { json: true });
      assert.equal(spoiled.status, 503);
      assert.ok(Number(spoiled.headers.get('retry-after')) >= 1);
      assert.throws(() => JSON.parse(spoiled.text));
      await clear();
    });

    it('refuses bad faults with a clear message, and deletes one by id', async () => {
      for (const [args, message] of [
        [['--path', '/games', '--status', '302'], /status must be an error status from 400 to 599/],
        [['--path', '/games', '--status', '600'], /status must be an error status from 400 to 599/],
        [
          ['--path', '/no/such/resource', '--status', '503'],
          /No route of the API matches any method \/no\/such\/resource/,
        ],
        [
          ['--path', '/games', '--method', 'DELETE', '--status', '503'],
          /No route of the API matches DELETE \/games/,
        ],
        [['--path', '/games', '--status', '503', '--times', '0'], /times/],
        [['--path', '/games', '--status', '503', '--app', 'nosuchapptoken'], /no app with the app token/],
        [['--path', '/games', '--status', '503', '--user', 'nobody-here'], /no user nobody-here/],
        [['--path', '/games', '--body', 'gzip'], /body is one of truncated, malformed/],
        [['--path', '/games', '--drop', '--body', 'truncated'], /not both/],
        [['--path', '/games', '--status', '503', '--expires-in', 'later'], /expiry/],
        [['--path', 'games', '--status', '503'], /path must start with "\/"/],
        [['--path', '/games', '--status', '503', '--rate', '1.5'], /rate/],
        [['--path', '/games', '--status', '503', '--rate', 'x'], /rate/],
        [['--path', '/games'], /needs a status, a latency, a body or --drop/],
        [['--path', '/games', '--drop', '--status', '503'], /not both/],
        [['--path', '/games', '--latency', 'soon'], /latency/],
        [['--path', '/games', '--status', '503', '--method', 'PATCH'], /method/],
        [['--path', '/games', '--status', '503', '--seed', '-1'], /seed/],
      ] as const) {
        const r = await cli('faults', 'add', ...args);
        assert.equal(r.code, 1, args.join(' '));
        assert.match(r.err, message);
      }
      assert.deepEqual(JSON.parse((await cli('faults', 'list')).out), []);

      const a = await add('--path', '/games', '--status', '503');
      const b = await add('--path', '/ws/v2.0/output.json/account', '--status', '500');
      assert.equal((await call(base, cred, 'GET', '/account')).status, 500);
      const r = await cli('faults', 'delete', String(b.idFault));
      assert.equal(r.code, 0, r.err);
      assert.equal((await call(base, cred, 'GET', '/account')).status, 200);
      assert.equal((await call(base, cred, 'GET', '/games')).status, 503);
      const missing = await cli('faults', 'delete', String(b.idFault));
      assert.equal(missing.code, 1);
      assert.match(missing.err, /no fault/);
      assert.deepEqual(
        JSON.parse((await cli('faults', 'list')).out).map((f: { idFault: number }) => f.idFault),
        [a.idFault],
      );
      await clear();
    });
  });
}

describe('faults, shared and refused', () => {
  it('two servers on one database file both apply a fault the command added', async () => {
    const { first, base1, base2, cli, close } = await startTwoServers();
    try {
      const { cred } = await createTestClient(first);
      assert.equal((await call(base2, cred, 'GET', '/account')).status, 200);
      const r = await cli('faults', 'add', '--path', '/account', '--status', '503');
      assert.equal(r.code, 0, r.err);
      assert.equal((await call(base1, cred, 'GET', '/account')).status, 503);
      assert.equal((await call(base2, cred, 'GET', '/account')).status, 503);
      await cli('faults', 'clear');
      assert.equal((await call(base1, cred, 'GET', '/account')).status, 200);
      assert.equal((await call(base2, cred, 'GET', '/account')).status, 200);
    } finally {
      await close();
    }
  });

  it('--times is counted across servers sharing the database', async () => {
    const { first, base1, base2, cli, close } = await startTwoServers();
    try {
      const { cred } = await createTestClient(first);
      const r = await cli('faults', 'add', '--path', '/games', '--status', '504', '--times', '4');
      assert.equal(r.code, 0, r.err);
      const answers = await Promise.all(
        Array.from({ length: 24 }, (_, i) =>
          call(i % 2 ? base1 : base2, cred, 'GET', '/games', { json: true }),
        ),
      );
      assert.equal(answers.filter((a) => a.status === 504).length, 4);
    } finally {
      await close();
    }
  });

  it("the domain parser takes the control API's JSON and refuses unknown fields by name", async () => {
    const server = await startTestServer();
    try {
      const { addFault } = await import('../src/domain/faults.js');
      await assert.rejects(
        addFault(server.services, { path: '/games', status: 503, colour: 'red' } as never),
        (err: ApiError) => err.status === 400 && err.field === 'colour' && /colour/.test(err.message),
      );
      await assert.rejects(
        addFault(server.services, { path: '/games', status: '5x3' }),
        (err: ApiError) => err.field === 'status',
      );
      await assert.rejects(
        addFault(server.services, { path: '/games', drop: 'yes' as never }),
        (err: ApiError) => err.field === 'drop',
      );
      await assert.rejects(
        addFault(server.services, { path: '/nowhere', status: 503 }),
        (err: ApiError) => err.field === 'path',
      );
      const fault = await addFault(server.services, {
        path: '/stock/**',
        status: 502,
        times: 2,
        latency: 10,
        expiresIn: '1h',
        body: 'truncated',
      });
      assert.equal(fault.times, 2);
      assert.equal(fault.remaining, 2);
      assert.equal(fault.latencyMs, 10);
      assert.equal(fault.body, 'truncated');
      assert.ok(fault.expiresAt);
    } finally {
      await server.close();
    }
  });

  it('logs every injected fault', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _enc, cb) {
        lines.push(String(chunk));
        cb();
      },
    });
    const services = await createServices(testConfig({ logLevel: 'info' }), {
      log: pino({ level: 'info' }, stream),
    });
    const app = await buildApp(services);
    try {
      await app.listen({ port: 0, host: '127.0.0.1' });
      const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
      const server = { app, services } as unknown as TestServer;
      const { cred } = await createTestClient(server);
      const { addFault } = await import('../src/domain/faults.js');
      const fault = await addFault(services, { path: '/account', status: 503 });
      assert.equal((await call(base, cred, 'GET', '/account')).status, 503);
      const entry = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'injected fault');
      assert.ok(entry, lines.join(''));
      assert.equal(entry.idFault, fault.idFault);
      assert.equal(entry.path, '/account');
      assert.equal(entry.status, 503);
    } finally {
      await app.close();
      await services.close();
    }
  });

  it('production refuses the commands', async () => {
    const server = await startFileTestServer();
    try {
      const r = await productionCliOn(server.databaseUrl)(
        'faults',
        'add',
        '--path',
        '/account',
        '--status',
        '503',
      );
      assert.equal(r.code, 1);
      assert.match(r.err, /production refuses/);
      const list = await productionCliOn(server.databaseUrl)('faults', 'list');
      assert.equal(list.code, 1);
    } finally {
      await server.close();
    }
  });
});

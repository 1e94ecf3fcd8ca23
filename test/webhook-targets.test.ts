import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { testConfig } from '../src/config.js';
import { sendSystemMessage } from '../src/domain/system-messages.js';
import {
  type HostLookup,
  listensOnLoopbackOnly,
  pinnedLookup,
  targetRuleOf,
} from '../src/domain/webhook-targets.js';
import { findUserByUsername } from '../src/store/users.js';
import { startTestServer, type TestServer } from './helpers.js';
import { textOf, WebClient } from './web-client.js';

/**
 * The webhook SSRF of issue 31: an internal HTTP service on 127.0.0.1 holding a secret, reached
 * through endpoint addresses that are, or resolve to, loopback. Names resolve through an injected
 * lookup (no DNS is asked); every connection stays on this machine.
 */

const SECRET = `SECRET-${randomBytes(8).toString('hex')}`;

interface Service {
  port: number;
  hits: number;
  close(): Promise<void>;
}

/** An internal service: answers every request with the secret. */
async function secretService(): Promise<Service> {
  const service = { port: 0, hits: 0, close: async () => {} };
  const server: Server = createServer((req, res) => {
    service.hits++;
    req.resume();
    res.writeHead(200, { 'content-type': 'text/plain' }).end(`${SECRET} (the internal answer)`);
  });
  return listening(server, service);
}

/** A receiver on loopback that answers 302 towards the internal service. */
async function redirector(to: string): Promise<Service> {
  const service = { port: 0, hits: 0, close: async () => {} };
  const server: Server = createServer((req, res) => {
    service.hits++;
    req.resume();
    res.writeHead(302, { location: to }).end(`moved to ${to}`);
  });
  return listening(server, service);
}

/** A port that is open but speaks no HTTP: `banner` then close, or close at once. */
async function rawPort(banner: string | undefined): Promise<Service> {
  const service = { port: 0, hits: 0, close: async () => {} };
  const sockets = new Set<import('node:net').Socket>();
  const server: TcpServer = createTcpServer((socket) => {
    service.hits++;
    sockets.add(socket);
    socket.on('error', () => {});
    if (banner === undefined) socket.destroy();
    else socket.end(banner);
  });
  await listening(server, service);
  const close = service.close;
  service.close = async () => {
    for (const socket of sockets) socket.destroy();
    await close();
  };
  return service;
}

async function listening(server: Server | TcpServer, service: Service): Promise<Service> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  service.port = (server.address() as AddressInfo).port;
  service.close = async () => {
    if ('closeAllConnections' in server) server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return service;
}

/** A port nothing listens on (taken, then given back). */
async function closedPort(): Promise<number> {
  const s = await rawPort(undefined);
  await s.close();
  return s.port;
}

/** Names resolved without DNS: `rebind.test` answers whatever `answers.rebind` holds at the time. */
function fakeResolver() {
  const answers: Record<string, string> = {
    'public.test': '93.184.215.14',
    'inside.test': '127.0.0.1',
    'rebind.test': '93.184.215.14',
  };
  const asked: string[] = [];
  const lookup: HostLookup = async (host) => {
    asked.push(host);
    const address = answers[host];
    if (!address) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return [{ address, family: address.includes(':') ? 6 : 4 }];
  };
  return { answers, asked, lookup };
}

/** Registers `username` with a dedicated app, ready on the new-endpoint form. */
async function ownerWithApp(server: TestServer, username: string) {
  const web = new WebClient(server);
  await web.register(username);
  await web.get('/profile/apps/new');
  const created = await web.post('/profile/apps', { kind: 'dedicated', name: 'Bot', callbackUrl: '' });
  assert.equal(created.status, 303, created.text);
  const idApp = Number(/app-(\d+)/.exec(created.location ?? '')?.[1]);
  const user = (await findUserByUsername(server.services.database.db, username))!;
  return { web, idApp, idUser: user.idUser };
}

async function addEndpoint(web: WebClient, idApp: number, url: string) {
  await web.get(`/profile/apps/${idApp}/webhooks/new`);
  return web.post(`/profile/apps/${idApp}/webhooks`, { url, enabled: 'true' });
}

async function raiseEventAndDeliver(server: TestServer, idUser: number) {
  await server.services.database.transaction((tx) =>
    sendSystemMessage(tx, server.clock.now(), idUser, 'Something happened.'),
  );
  await server.services.events.deliverPending();
  await server.services.webhooks.deliverDue();
}

/** The attempts table's rows: status, duration and response cells as text. */
function attemptRows(html: string) {
  return [...html.matchAll(/<tr id="attempt-\d+">([\s\S]*?)<\/tr>/g)].map((m) => ({
    status: textOf(/data-attempt="status">([^<]*)</.exec(m[1]!)?.[1] ?? '').trim(),
    duration: textOf(/data-attempt="duration">([^<]*)</.exec(m[1]!)?.[1] ?? '').trim(),
    response: textOf(/data-attempt="response">([\s\S]*?)<\/td>/.exec(m[1]!)?.[1] ?? '').trim(),
  }));
}

describe('webhook targets on a sandbox others can reach (private targets refused)', () => {
  let server: TestServer;
  let service: Service;
  const resolver = fakeResolver();
  before(async () => {
    service = await secretService();
    // Listening on every interface: anyone on the network can register, so the production rule holds.
    server = await startTestServer({
      config: { host: '0.0.0.0' },
      overrides: { webhookLookup: resolver.lookup },
    });
  });
  after(async () => {
    await server.close();
    await service.close();
  });

  it('refuses at registration every address that is, or resolves to, loopback, beside the field', async () => {
    const { web, idApp } = await ownerWithApp(server, 'ssrf-register');
    const p = service.port;
    for (const url of [
      `http://127.0.0.1:${p}/`,
      `http://127.1:${p}/`,
      `http://localhost:${p}/`,
      `http://localhost.:${p}/`,
      `http://[::1]:${p}/`,
      `http://[::ffff:127.0.0.1]:${p}/`,
      `http://[::7f00:1]:${p}/`,
      `http://inside.test:${p}/`,
      `http://inside.test.:${p}/`,
      `http://10.0.0.1:${p}/`,
      `http://169.254.169.254/latest/meta-data/`,
    ]) {
      const refused = await addEndpoint(web, idApp, url);
      assert.equal(refused.status, 400, url);
      assert.match(refused.text, /class="error"[^>]*>[^<]*loopback or private networks/, url);
    }
    const unresolvable = await addEndpoint(web, idApp, `http://nowhere.test:${p}/`);
    assert.equal(unresolvable.status, 400);
    assert.match(textOf(unresolvable.text), /does not resolve/);
    assert.equal(service.hits, 0);
    assert.equal(
      (await server.services.database.db.selectFrom('webhookEndpoints').select('idEndpoint').execute())
        .length,
      0,
    );
  });

  it('refuses at delivery a name that resolved to a public address at registration and to loopback since', async () => {
    const { web, idApp, idUser } = await ownerWithApp(server, 'ssrf-rebind');
    resolver.answers['rebind.test'] = '93.184.215.14';
    const added = await addEndpoint(web, idApp, `http://rebind.test:${service.port}/steal`);
    assert.equal(added.status, 303, added.text);
    resolver.answers['rebind.test'] = '127.0.0.1';
    resolver.asked.length = 0;
    await raiseEventAndDeliver(server, idUser);
    assert.equal(service.hits, 0);
    // Resolved once, by the check; the connection would have used that answer, not asked again.
    assert.deepEqual(resolver.asked, ['rebind.test']);
    const page = await web.get(added.location!);
    assert.equal(page.status, 200);
    assert.doesNotMatch(page.text, new RegExp(SECRET));
    assert.deepEqual(attemptRows(page.text), [
      {
        status: 'no answer',
        duration: '—',
        response: 'No answer: the address was refused or could not be reached, or it did not answer in time.',
      },
    ]);
  });
});

describe('webhook targets on a sandbox listening on loopback alone (private targets allowed)', () => {
  let server: TestServer;
  const services: Service[] = [];
  let service: Service;
  before(async () => {
    service = await secretService();
    services.push(service);
    server = await startTestServer();
  });
  after(async () => {
    await server.close();
    for (const s of services) await s.close();
  });

  it('delivers to a local receiver but never shows the bytes it answered', async () => {
    const { web, idApp, idUser } = await ownerWithApp(server, 'local-dev');
    const added = await addEndpoint(web, idApp, `http://localhost:${service.port}/hook`);
    assert.equal(added.status, 303, added.text);
    await raiseEventAndDeliver(server, idUser);
    assert.equal(service.hits, 1);
    const page = await web.get(added.location!);
    assert.doesNotMatch(page.text, new RegExp(SECRET));
    assert.deepEqual(
      attemptRows(page.text).map((r) => [r.status, r.response]),
      [['200', 'Answer from a private address: its body is not kept.']],
    );
  });

  it('does not follow a redirect, to the internal service or anywhere', async () => {
    const redirecting = await redirector(`http://127.0.0.1:${service.port}/`);
    services.push(redirecting);
    const before = service.hits;
    const { web, idApp, idUser } = await ownerWithApp(server, 'redirected');
    const added = await addEndpoint(web, idApp, `http://127.0.0.1:${redirecting.port}/hook`);
    await raiseEventAndDeliver(server, idUser);
    assert.equal(redirecting.hits, 1);
    assert.equal(service.hits, before);
    const page = await web.get(added.location!);
    assert.equal(attemptRows(page.text)[0]?.status, '302');
    assert.doesNotMatch(page.text, new RegExp(SECRET));
  });

  it('makes "Send again" no port scanner: closed, hanging-up and non-HTTP ports look the same', async () => {
    const hangUp = await rawPort(undefined);
    const banner = await rawPort('SSH-2.0-OpenSSH_9.6\r\n');
    services.push(hangUp, banner);
    const { web, idApp, idUser } = await ownerWithApp(server, 'scanner');
    const pages: string[] = [];
    for (const port of [await closedPort(), hangUp.port, banner.port]) {
      const added = await addEndpoint(web, idApp, `http://127.0.0.1:${port}/`);
      assert.equal(added.status, 303, added.text);
      pages.push(added.location!);
    }
    await raiseEventAndDeliver(server, idUser);
    assert.equal(hangUp.hits, 1);
    assert.equal(banner.hits, 1);
    const seen = [];
    for (const path of pages) {
      const page = await web.get(path);
      // Send again, and look again: the same.
      const resend = /action="(\/profile\/webhooks\/\d+\/deliveries\/\d+\/resend)"/.exec(page.text)?.[1];
      assert.equal((await web.post(resend!)).status, 303);
      await server.services.webhooks.deliverDue();
      seen.push(attemptRows((await web.get(path)).text));
    }
    const expected = {
      status: 'no answer',
      duration: '—',
      response: 'No answer: the address was refused or could not be reached, or it did not answer in time.',
    };
    assert.deepEqual(seen, [
      [expected, expected],
      [expected, expected],
      [expected, expected],
    ]);
    assert.equal(banner.hits, 2);
  });
});

describe('which rule holds', () => {
  it('allows private targets only on a sandbox that nobody else can reach, or when told to', () => {
    const rule = (c: Parameters<typeof testConfig>[0]) => targetRuleOf(testConfig(c)).allowPrivate;
    assert.equal(rule({}), true);
    assert.equal(rule({ host: 'localhost' }), true);
    assert.equal(rule({ host: '::1' }), true);
    assert.equal(rule({ host: '127.0.0.2', publicBaseUrl: 'http://127.0.0.1:8080' }), true);
    assert.equal(rule({ host: '0.0.0.0' }), false);
    assert.equal(rule({ host: '::' }), false);
    assert.equal(rule({ host: '192.168.1.5' }), false);
    // Behind a proxy, or announced under another name: others reach it.
    assert.equal(rule({ trustProxy: true }), false);
    assert.equal(rule({ publicBaseUrl: 'https://sandbox.example.org' }), false);
    assert.equal(rule({ mode: 'production' }), false);
    assert.equal(rule({ host: '0.0.0.0', webhookAllowPrivate: true }), true);
    assert.equal(rule({ mode: 'production', webhookAllowPrivate: true }), true);
    assert.equal(listensOnLoopbackOnly(testConfig({ host: 'localhost.' })), true);
  });

  it('connects to the addresses the check accepted, whatever name the connection asks for', async () => {
    const lookup = pinnedLookup([
      { address: '93.184.215.14', family: 4 },
      { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
    ]);
    const ask = (options: { all?: boolean; family?: number }) =>
      new Promise<unknown>((resolve) =>
        lookup('rebind.test', options, (err, address, family) => resolve(err ? err.code : [address, family])),
      );
    assert.deepEqual(await ask({}), ['93.184.215.14', 4]);
    assert.deepEqual(await ask({ family: 6 }), ['2606:2800:21f:cb07:6820:80da:af6b:8b2c', 6]);
    assert.deepEqual(await ask({ all: true }), [
      [
        { address: '93.184.215.14', family: 4 },
        { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
      ],
      undefined,
    ]);
  });
});

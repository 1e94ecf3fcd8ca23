import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { promises as dns } from 'node:dns';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import * as dnsPacket from 'dns-packet';
import { createApp } from '../src/auth/apps.js';
import { testConfig } from '../src/config.js';
import { createUser } from '../src/domain/users.js';
import { type DnsServer, parseUpstream, startDns } from '../src/sandbox/dns.js';
import { startServer } from '../src/server.js';
import { runCli } from './cli-helpers.js';

/**
 * `cardbazaar dns` (README, "Clients with the live host built in"): the live hosts answered here,
 * every other name passed to the upstream. Every packet stays on 127.0.0.1: the upstream is a stub
 * these tests start, and its answer (192.0.2.7, a documentation address) is data, never contacted.
 */

const STUB_ANSWER = '192.0.2.7';

/** An upstream resolver on 127.0.0.1 (UDP and TCP, one port) that answers every A question with STUB_ANSWER. */
async function startStub(options: { silent?: boolean } = {}) {
  const asked: string[] = [];
  const reply = (query: Buffer): Buffer => {
    const packet = dnsPacket.decode(query);
    const q = packet.questions![0]!;
    asked.push(`${q.type} ${q.name}`);
    return dnsPacket.encode({
      type: 'response',
      id: packet.id,
      flags: dnsPacket.RECURSION_AVAILABLE,
      questions: packet.questions,
      answers: q.type === 'A' ? [{ type: 'A', name: q.name, ttl: 30, data: STUB_ANSWER }] : [],
    });
  };
  const udp: UdpSocket = createSocket('udp4');
  udp.on('message', (msg, from) => {
    if (!options.silent) udp.send(reply(msg), from.port, from.address);
    else asked.push('(dropped)');
  });
  await new Promise<void>((r) => udp.bind({ address: '127.0.0.1', port: 0 }, () => r()));
  const port = udp.address().port;
  const tcp: Server = createServer((socket) => {
    socket.on('data', (chunk: Buffer) => {
      const query = chunk.subarray(2, 2 + chunk.readUInt16BE(0));
      const answer = reply(query);
      const length = Buffer.alloc(2);
      length.writeUInt16BE(answer.length);
      socket.end(Buffer.concat([length, answer]));
    });
  });
  await new Promise<void>((r) => tcp.listen({ host: '127.0.0.1', port }, () => r()));
  return {
    port,
    asked,
    close: async () => {
      await new Promise<void>((r) => udp.close(() => r()));
      await new Promise<void>((r) => tcp.close(() => r()));
    },
  };
}

function resolverAt(port: number): dns.Resolver {
  const r = new dns.Resolver({ timeout: 2000, tries: 1 });
  r.setServers([`127.0.0.1:${port}`]);
  return r;
}

/** One query over TCP (two-byte length, then the message), as a client retrying a truncated answer sends it. */
function askOverTcp(port: number, name: string): Promise<dnsPacket.DecodedPacket> {
  return new Promise((done, fail) => {
    const socket = connect({ host: '127.0.0.1', port });
    const query = dnsPacket.encode({
      type: 'query',
      id: 4242,
      flags: dnsPacket.RECURSION_DESIRED,
      questions: [{ type: 'A', name }],
    });
    let got = Buffer.alloc(0);
    socket.on('connect', () => {
      const length = Buffer.alloc(2);
      length.writeUInt16BE(query.length);
      socket.write(Buffer.concat([length, query]));
    });
    socket.on('data', (chunk: Buffer) => {
      got = Buffer.concat([got, chunk]);
      if (got.length >= 2 && got.length >= 2 + got.readUInt16BE(0)) {
        socket.destroy();
        done(dnsPacket.decode(got.subarray(2)));
      }
    });
    socket.on('error', fail);
  });
}

const LIVE = [
  'apiv2.cardmarket.com',
  'api.cardmarket.com',
  'sandbox.cardmarket.com',
  'www.mkmapi.eu',
  'sandbox.mkmapi.eu',
];

describe('the live hosts resolver', () => {
  let stub: Awaited<ReturnType<typeof startStub>>;
  let server: DnsServer;
  before(async () => {
    stub = await startStub();
    server = await startDns({
      listen: '127.0.0.1',
      port: 0,
      names: LIVE,
      addresses: ['127.0.0.1', '::1'],
      upstream: { address: '127.0.0.1', port: stub.port },
    });
  });
  after(async () => {
    await server.close();
    await stub.close();
  });

  it('answers A and AAAA for every live host, any case, without asking upstream', async () => {
    const r = resolverAt(server.port);
    for (const name of LIVE) {
      assert.deepEqual(await r.resolve4(name), ['127.0.0.1'], name);
      assert.deepEqual(await r.resolve6(name), ['::1'], name);
    }
    assert.deepEqual(await r.resolve4('APIv2.CardMarket.com'), ['127.0.0.1']);
    const ttl = await r.resolve4('apiv2.cardmarket.com', { ttl: true });
    assert.equal(ttl[0]!.ttl, 60);
    assert.deepEqual(stub.asked, []);
  });

  it('passes every other name to the upstream and its answer back, over UDP and TCP', async () => {
    const r = resolverAt(server.port);
    assert.deepEqual(await r.resolve4('example.test'), [STUB_ANSWER]);
    assert.deepEqual(await r.resolve4('cardmarket.com'), [STUB_ANSWER]);
    assert.deepEqual(await r.resolve4('x.apiv2.cardmarket.com'), [STUB_ANSWER]);
    assert.deepEqual(stub.asked, ['A example.test', 'A cardmarket.com', 'A x.apiv2.cardmarket.com']);

    const here = await askOverTcp(server.port, 'apiv2.cardmarket.com');
    assert.equal(here.id, 4242);
    assert.equal(here.flag_aa, true);
    assert.deepEqual(
      here.answers!.map((a) => (a as { data: string }).data),
      ['127.0.0.1'],
    );
    const passed = await askOverTcp(server.port, 'other.test');
    assert.deepEqual(
      passed.answers!.map((a) => (a as { data: string }).data),
      [STUB_ANSWER],
    );
    assert.equal(stub.asked.at(-1), 'A other.test');
  });

  it('answers no record of a family it has no address of, and SERVFAIL when the upstream is silent', async () => {
    const silent = await startStub({ silent: true });
    const v4only = await startDns({
      listen: '127.0.0.1',
      port: 0,
      names: ['apiv2.cardmarket.com'],
      addresses: ['127.0.0.1'],
      upstream: { address: '127.0.0.1', port: silent.port },
      upstreamTimeoutMs: 200,
    });
    try {
      const r = resolverAt(v4only.port);
      await assert.rejects(() => r.resolve6('apiv2.cardmarket.com'), { code: 'ENODATA' });
      await assert.rejects(() => r.resolve4('elsewhere.test'), { code: 'ESERVFAIL' });
      assert.deepEqual(silent.asked, ['(dropped)']);
    } finally {
      await v4only.close();
      await silent.close();
    }
  });

  it('answers FORMERR to a message it cannot read', async () => {
    const socket = createSocket('udp4');
    try {
      const answer = await new Promise<Buffer>((done) => {
        socket.on('message', (msg) => done(msg));
        socket.send(Buffer.from([0x12, 0x34, 0xff, 0xff, 0xff]), server.port, '127.0.0.1');
      });
      assert.equal(answer.readUInt16BE(0), 0x1234);
      assert.equal(answer.readUInt16BE(2) & 0x000f, 1); // FORMERR
      assert.equal(answer.readUInt16BE(2) & 0x8000, 0x8000); // a response
    } finally {
      socket.close();
    }
  });

  it('reads upstream addresses as ADDR, ADDR:PORT and [IPv6]:PORT', () => {
    assert.deepEqual(parseUpstream('127.0.0.53'), { address: '127.0.0.53', port: 53 });
    assert.deepEqual(parseUpstream('127.0.0.1:5300'), { address: '127.0.0.1', port: 5300 });
    assert.deepEqual(parseUpstream('[::1]:5300'), { address: '::1', port: 5300 });
    assert.deepEqual(parseUpstream('::1'), { address: '::1', port: 53 });
    assert.throws(() => parseUpstream('resolver.example'), /not an address/);
    assert.throws(() => parseUpstream('127.0.0.1:99999'), /no valid port/);
  });

  it('refuses bad options with a clear message', async () => {
    for (const [args, message] of [
      [['--port', 'x'], /--port\b.*expected an integer|--port must be a port number/],
      [['--listen', 'nowhere'], /--listen must be an address/],
      [['--address', 'apiv2.example'], /--address takes IPv4 or IPv6 addresses/],
      [['--upstream', 'resolver.example'], /--upstream: .*not an address/],
      [
        ['--port', '5300', '--listen', '127.0.0.1', '--upstream', '127.0.0.1:5300'],
        /is this resolver itself/,
      ],
    ] as const) {
      const res = await runCli('dns', ...args);
      assert.equal(res.code, 1, args.join(' '));
      assert.match(res.err, message);
    }
    const empty = await runCli('--live-hosts', '', 'dns', '--port', '0', '--upstream', '127.0.0.1:9');
    assert.equal(empty.code, 1);
    assert.match(empty.err, /LIVE_HOSTS is empty/);
  });
});

describe("cardbazaar dns as the live client's resolver", () => {
  const work = mkdtempSync(join(tmpdir(), 'cardbazaar-dns-'));
  const dir = join(work, 'tls');
  after(() => rmSync(work, { recursive: true, force: true }));

  it('sends the live client to the sandbox over https: 200 for apiv2, 410 for the moved host', async () => {
    assert.equal((await runCli('tls', 'init', '--dir', dir)).code, 0);
    const stub = await startStub();
    const server = await startServer(
      testConfig({ port: 0, tlsPort: 0, tlsDir: dir, liveHostMoved: true }),
      () => {},
    );
    let child: ChildProcess | undefined;
    try {
      const user = await createUser(server.services, {
        username: 'dns-client',
        country: 'D',
        accountType: 'private',
        balanceCents: 0,
        firstName: 'Dns',
        lastName: 'Client',
      });
      const issued = await createApp(server.services, { idUser: user.idUser, kind: 'dedicated' });

      // The command as a user runs it, a process of its own, until it is stopped.
      child = spawn(
        process.execPath,
        [
          '--import',
          import.meta.resolve('tsx'),
          resolve('src/cli.ts'),
          'dns',
          '--port',
          '0',
          '--listen',
          '127.0.0.1',
          '--address',
          '127.0.0.1',
          '--upstream',
          `127.0.0.1:${stub.port}`,
        ],
        { env: { ...process.env, LOG_LEVEL: 'warn' } },
      );
      const exit = new Promise<number | null>((r) => child!.on('exit', (code) => r(code)));
      let out = '';
      const port = await new Promise<number>((done, fail) => {
        const timer = setTimeout(() => fail(new Error(`no port within 120 s:\n${out}`)), 120_000);
        child!.stdout!.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /answering on 127\.0\.0\.1:(\d+) \(udp and tcp\)/.exec(out);
          if (m) {
            clearTimeout(timer);
            done(Number(m[1]));
          }
        });
        child!.stderr!.on('data', (d: Buffer) => (out += d.toString()));
        void exit.then((code) => fail(new Error(`exited with ${code}:\n${out}`)));
      });
      assert.match(
        out,
        /apiv2\.cardmarket\.com, api\.cardmarket\.com, .* → 127\.0\.0\.1; every other name → 127\.0\.0\.1:/,
      );

      const tlsPort = Number(new URL(server.httpsUrl!).port);
      const cred = {
        appToken: issued.appToken,
        appSecret: issued.appSecret,
        accessToken: issued.accessToken!.token,
        accessTokenSecret: issued.accessToken!.secret,
      };
      const run = (url: string) => liveClientThroughDns(cred, url, tlsPort, port, join(dir, 'ca.pem'));
      const account = await run('https://apiv2.cardmarket.com/ws/v2.0/output.json/account');
      assert.equal(account.status, 200, JSON.stringify(account));
      assert.equal(JSON.parse(account.body!).account.username, 'dns-client');
      const moved = await run('https://api.cardmarket.com/ws/v2.0/output.json/account');
      assert.equal(moved.status, 410);
      assert.equal(
        JSON.parse(moved.body!).mkm_error_description,
        'Please switch to https://apiv2.cardmarket.com',
      );
      // A name that is no live host is not the sandbox's: the client goes where the upstream says.
      assert.deepEqual(await resolverAt(port).resolve4('elsewhere.test'), [STUB_ANSWER]);
      assert.ok(stub.asked.includes('A elsewhere.test'));
      assert.ok(!stub.asked.some((q) => q.includes('cardmarket')));
      assert.match(out, /answered {2}A apiv2\.cardmarket\.com/);
      assert.match(out, /passed on {2}A elsewhere\.test/);

      child.kill('SIGTERM');
      assert.equal(await exit, 0);
      child = undefined;
    } finally {
      child?.kill('SIGKILL');
      await server.stop();
      await stub.close();
    }
  });
});

/** test/live-client.mjs resolving through the resolver at `dnsPort`, trusting the authority. */
function liveClientThroughDns(
  cred: { appToken: string; appSecret: string; accessToken: string; accessTokenSecret: string },
  url: string,
  port: number,
  dnsPort: number,
  ca: string,
): Promise<{ status?: number; body?: string; error?: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [resolve('test/live-client.mjs')], {
      env: {
        ...process.env,
        LIVE_URL: url,
        PORT: String(port),
        RESOLVE: `dns:127.0.0.1:${dnsPort}`,
        NODE_EXTRA_CA_CERTS: ca,
        APP_TOKEN: cred.appToken,
        APP_SECRET: cred.appSecret,
        ACCESS_TOKEN: cred.accessToken,
        ACCESS_TOKEN_SECRET: cred.accessTokenSecret,
      },
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', () => {
      try {
        done(JSON.parse(out.trim().split('\n').at(-1)!));
      } catch {
        fail(new Error(`the client printed no answer: ${out}`));
      }
    });
  });
}

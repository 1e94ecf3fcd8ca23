import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createApp } from '../src/auth/apps.js';
import { ConfigError, loadConfig, testConfig } from '../src/config.js';
import { createUser } from '../src/domain/users.js';
import { startServer, type RunningServer } from '../src/server.js';
import type { SandboxDocument } from '../src/sandbox/types.js';
import { runCli } from './cli-helpers.js';

/**
 * https under the live host names (README, "Clients with the live host built in"): `tls init` makes
 * the authority and the certificate, `serve --tls-port` answers with it, and a client that has
 * `https://apiv2.cardmarket.com` built in (test/live-client.mjs: its own process, trusting the
 * authority through NODE_EXTRA_CA_CERTS, its own OAuth library, the name resolved to 127.0.0.1 as a
 * hosts-file line would) gets its account. Loopback only.
 */

const CLI = resolve('src/cli.ts');
const TSX = import.meta.resolve('tsx');
const CLIENT = resolve('test/live-client.mjs');
const work = mkdtempSync(join(tmpdir(), 'cardbazaar-tls-'));
const dir = join(work, 'tls');
const ca = join(dir, 'ca.pem');

interface Credentials {
  appToken: string;
  appSecret: string;
  accessToken: string;
  accessTokenSecret: string;
}

interface ClientAnswer {
  status?: number;
  body?: string;
  error?: string;
}

/** test/live-client.mjs in a process of its own, as the live client would run. */
function liveClient(
  cred: Credentials,
  options: { url: string; port: number; resolve?: string; trust?: boolean; scheme?: 'http' },
): Promise<ClientAnswer> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    LIVE_URL: options.url,
    PORT: String(options.port),
    RESOLVE: options.resolve ?? 'fixed:127.0.0.1',
    APP_TOKEN: cred.appToken,
    APP_SECRET: cred.appSecret,
    ACCESS_TOKEN: cred.accessToken,
    ACCESS_TOKEN_SECRET: cred.accessTokenSecret,
  };
  delete env.NODE_EXTRA_CA_CERTS;
  if (options.trust !== false) env.NODE_EXTRA_CA_CERTS = ca;
  if (options.scheme) env.SCHEME = options.scheme;
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [CLIENT], { env });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', () => {
      try {
        done(JSON.parse(out.trim().split('\n').at(-1)!) as ClientAnswer);
      } catch {
        fail(new Error(`the client printed no answer:\n${out}\n${err}`));
      }
    });
  });
}

/** `cardbazaar serve …` as a real process, read through the document it prints. */
function startServe(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ child: ChildProcess; document: SandboxDocument; exit: Promise<number | null> }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', TSX, CLI, ...args], {
      cwd: work,
      env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    });
    let out = '';
    let err = '';
    const exit = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const timer = setTimeout(() => fail(new Error(`no document within 180 s:\n${out}\n${err}`)), 180_000);
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const end = out.indexOf('\n');
      if (end < 0) return;
      clearTimeout(timer);
      done({ child, document: JSON.parse(out.slice(0, end)) as SandboxDocument, exit });
    });
    void exit.then((code) => {
      clearTimeout(timer);
      fail(new Error(`exited with ${code} before printing a document:\n${out}\n${err}`));
    });
  });
}

/** The real server in this process, with a user and a dedicated app of its own. */
async function startWithUser(
  overrides: Parameters<typeof testConfig>[0],
): Promise<{ server: RunningServer; cred: Credentials }> {
  const server = await startServer(testConfig({ port: 0, ...overrides }), () => {});
  const user = await createUser(server.services, {
    username: `live-${Math.random().toString(36).slice(2, 8)}`,
    country: 'D',
    accountType: 'private',
    balanceCents: 0,
    firstName: 'Live',
    lastName: 'Client',
  });
  const issued = await createApp(server.services, { idUser: user.idUser, kind: 'dedicated' });
  return {
    server,
    cred: {
      appToken: issued.appToken,
      appSecret: issued.appSecret,
      accessToken: issued.accessToken!.token,
      accessTokenSecret: issued.accessToken!.secret,
    },
  };
}

const portOf = (url: string) => Number(new URL(url).port);

before(async () => {
  const made = await runCli('tls', 'init', '--dir', dir);
  assert.equal(made.code, 0, made.err);
});
after(() => rmSync(work, { recursive: true, force: true }));

describe('cardbazaar tls init', () => {
  it('makes an authority and a server certificate for the live hosts, localhost and the loopback addresses', () => {
    const authority = new X509Certificate(readFileSync(ca));
    const server = new X509Certificate(readFileSync(join(dir, 'server.pem')));
    assert.equal(authority.ca, true);
    assert.equal(server.ca, false);
    assert.ok(server.verify(authority.publicKey), 'signed by the authority');
    assert.ok(server.checkIssued(authority));
    for (const name of [
      'apiv2.cardmarket.com',
      'api.cardmarket.com',
      'sandbox.cardmarket.com',
      'www.mkmapi.eu',
      'sandbox.mkmapi.eu',
      'localhost',
    ]) {
      assert.equal(server.checkHost(name), name, name);
    }
    assert.equal(server.checkIP('127.0.0.1'), '127.0.0.1');
    assert.equal(server.checkIP('::1'), '::1');
    assert.equal(server.checkHost('example.org'), undefined);
    const days = (Date.parse(server.validTo) - Date.now()) / 86_400_000;
    assert.ok(days > 800 && days <= 825, `valid for ${days} days`);
    assert.match(server.keyUsage?.join(',') ?? '', /1\.3\.6\.1\.5\.5\.7\.3\.1/); // serverAuth
  });

  it('writes the keys readable by their owner only, the certificates readable by all', () => {
    for (const key of ['ca-key.pem', 'server-key.pem']) {
      assert.equal(statSync(join(dir, key)).mode & 0o777, 0o600, key);
      assert.match(readFileSync(join(dir, key), 'utf8'), /^-----BEGIN RSA PRIVATE KEY-----/);
    }
    for (const cert of ['ca.pem', 'server.pem']) {
      assert.equal(statSync(join(dir, cert)).mode & 0o777, 0o644, cert);
    }
  });

  it('keeps the authority when run again (a new server certificate), tightens a loosened key, and replaces it on request', async () => {
    const other = join(work, 'again');
    assert.equal((await runCli('tls', 'init', '--dir', other)).code, 0);
    const first = new X509Certificate(readFileSync(join(other, 'ca.pem')));
    const firstServer = new X509Certificate(readFileSync(join(other, 'server.pem')));
    chmodSync(join(other, 'ca-key.pem'), 0o644);
    const again = await runCli('tls', 'init', '--dir', other, '--json');
    assert.equal(again.code, 0, again.err);
    const report = JSON.parse(again.out);
    assert.equal(report.newAuthority, false);
    assert.equal(report.fingerprint, first.fingerprint256);
    assert.equal(statSync(join(other, 'ca-key.pem')).mode & 0o777, 0o600);
    const second = new X509Certificate(readFileSync(join(other, 'server.pem')));
    assert.notEqual(second.serialNumber, firstServer.serialNumber);
    assert.ok(second.verify(first.publicKey));
    const replaced = JSON.parse(
      (await runCli('tls', 'init', '--dir', other, '--new-authority', '--json')).out,
    );
    assert.equal(replaced.newAuthority, true);
    assert.notEqual(replaced.fingerprint, first.fingerprint256);
  });

  it('prints how to trust the authority in each runtime, with the warning about its key', async () => {
    const res = await runCli('tls', 'trust', '--dir', dir);
    assert.equal(res.code, 0, res.err);
    for (const needle of [
      `NODE_EXTRA_CA_CERTS=${ca}`,
      'REQUESTS_CA_BUNDLE=',
      'SSL_CERT_FILE=',
      `curl.cainfo=${ca}`,
      `openssl.cafile=${ca}`,
      'CURL_CA_BUNDLE',
      `keytool -importcert -noprompt -trustcacerts -alias cardbazaar-sandbox -file ${ca}`,
      'Import-Certificate',
      'update-ca-certificates',
      'apk add --no-cache ca-certificates',
      `WARNING: whoever holds ${join(dir, 'ca-key.pem')}`,
    ]) {
      assert.ok(res.out.includes(needle), needle);
    }
    const none = await runCli('tls', 'trust', '--dir', join(work, 'nothing-here'));
    assert.equal(none.code, 1);
    assert.match(none.err, /There is no authority in .*: run `cardbazaar tls init --dir/);
  });

  it('is refused in production, as TLS_PORT, LIVE_HOSTS and LIVE_HOST_MOVED are', async () => {
    const production = [
      '--production',
      '--secret-key',
      'x'.repeat(40),
      '--public-base-url',
      'https://api.example.test',
    ];
    for (const command of [
      ['tls', 'init', '--dir', join(work, 'prod')],
      ['tls', 'trust', '--dir', dir],
      ['dns', '--port', '0', '--upstream', '127.0.0.1:9'],
    ]) {
      const res = await runCli(...production, ...command);
      assert.equal(res.code, 1, command.join(' '));
      assert.match(res.err, /for the sandbox only/);
    }
    const env = {
      NODE_ENV: 'production',
      SECRET_KEY: 'x'.repeat(40),
      PUBLIC_BASE_URL: 'https://api.example.test',
    };
    assert.throws(() => loadConfig({ ...env, TLS_PORT: '8443' }), ConfigError);
    assert.throws(() => loadConfig({ ...env, LIVE_HOSTS: 'apiv2.cardmarket.com' }), ConfigError);
    assert.throws(() => loadConfig({ ...env, LIVE_HOST_MOVED: 'true' }), ConfigError);
    assert.deepEqual(loadConfig(env).liveHosts, []);
    assert.deepEqual(loadConfig({ ...env, LIVE_HOSTS: '' }).liveHosts, []);
  });
});

describe('serve --tls-port', () => {
  it('answers the live client over https with the generated authority: 200 for apiv2, 410 for the moved host (a real process)', async () => {
    const serve = await startServe(
      [
        'serve',
        '--port',
        '0',
        '--tls-port',
        '0',
        '--tls-dir',
        dir,
        '--database-url',
        ':memory:',
        '--print-credentials',
        'json',
      ],
      { LIVE_HOST_MOVED: 'true' },
    );
    try {
      const doc = serve.document;
      assert.match(doc.httpsBaseUrl ?? '', /^https:\/\/127\.0\.0\.1:\d+\/ws\/v2\.0$/);
      const port = portOf(doc.httpsBaseUrl!);
      const seller = doc.users.find((u) => u.username === 'demo-seller')!.apps.dedicated!;

      const account = await liveClient(seller, { url: 'https://apiv2.cardmarket.com/ws/v2.0/account', port });
      assert.equal(account.status, 200, JSON.stringify(account));
      assert.match(account.body!, /<username>demo-seller<\/username>/);
      const json = await liveClient(seller, {
        url: 'https://apiv2.cardmarket.com/ws/v2.0/output.json/account',
        port,
      });
      assert.equal(json.status, 200);
      assert.equal(JSON.parse(json.body!).account.username, 'demo-seller');

      // Not trusting the authority, the client refuses the server: the trust is what makes it work.
      const untrusted = await liveClient(seller, {
        url: 'https://apiv2.cardmarket.com/ws/v2.0/account',
        port,
        trust: false,
      });
      assert.equal(untrusted.status, undefined);
      assert.match(untrusted.error!, /certificate/i);

      // The host move emulated: the old host answers as the live one does.
      const moved = await liveClient(seller, { url: 'https://api.cardmarket.com/ws/v2.0/account', port });
      assert.equal(moved.status, 410);
      assert.match(
        moved.body!,
        /<mkm_error_description>Please switch to https:\/\/apiv2\.cardmarket\.com<\/mkm_error_description>/,
      );
      const movedJson = await liveClient(seller, {
        url: 'https://api.cardmarket.com/ws/v2.0/output.json/account',
        port,
      });
      assert.equal(movedJson.status, 410);
      assert.equal(
        JSON.parse(movedJson.body!).mkm_error_description,
        'Please switch to https://apiv2.cardmarket.com',
      );

      // The plain listener goes on as before.
      const plain = await fetch(`${doc.baseUrl.replace('/ws/v2.0', '')}/healthz`);
      assert.equal(plain.status, 200);
      // The keys are never served, under any name.
      for (const path of ['/ca-key.pem', '/tls/ca-key.pem', '/data/tls/server-key.pem', '/server-key.pem']) {
        const res = await fetch(`${doc.baseUrl.replace('/ws/v2.0', '')}${path}`);
        assert.equal(res.status, 404, path);
        assert.doesNotMatch(await res.text(), /PRIVATE KEY/);
      }
    } finally {
      serve.child.kill('SIGTERM');
      assert.equal(await serve.exit, 0);
    }
  });

  it('answers 401 to the same client when LIVE_HOSTS is empty, and https requests verify as https', async () => {
    const { server, cred } = await startWithUser({ tlsPort: 0, tlsDir: dir, liveHosts: [] });
    try {
      const port = portOf(server.httpsUrl!);
      const res = await liveClient(cred, { url: 'https://apiv2.cardmarket.com/ws/v2.0/account', port });
      assert.equal(res.status, 401, JSON.stringify(res));
      assert.match(res.body!, /<internal_error_code>live_host_not_accepted<\/internal_error_code>/);
      assert.match(res.body!, /addressed to apiv2\.cardmarket\.com, a live host/);
      // Requests arriving over the TLS listener verify as https: the own URL, under its own name.
      const own = await liveClient(cred, { url: `https://127.0.0.1:${port}/ws/v2.0/account`, port });
      assert.equal(own.status, 200, JSON.stringify(own));
    } finally {
      await server.stop();
    }
  });

  it('answers 401 in production, always (behind a TLS-terminating proxy, under the live name)', async () => {
    const { server, cred } = await startWithUser({
      mode: 'production',
      publicBaseUrl: 'https://api.example.test',
    });
    try {
      const port = Number(new URL(server.url).port);
      for (const url of [
        'https://apiv2.cardmarket.com/ws/v2.0/account',
        'https://api.cardmarket.com/ws/v2.0/account',
      ]) {
        const res = await liveClient(cred, { url, port, scheme: 'http' });
        assert.equal(res.status, 401, `${url}: ${JSON.stringify(res)}`);
        assert.match(res.body!, /<mkm_error_description>Invalid signature\.<\/mkm_error_description>/);
      }
    } finally {
      await server.stop();
    }
  });

  it('refuses to start without a certificate, saying how to make one', async () => {
    const empty = join(work, 'empty');
    await assert.rejects(
      () => startServer(testConfig({ port: 0, tlsPort: 0, tlsDir: empty }), () => {}),
      (err: Error) =>
        err instanceof ConfigError && err.message.includes(`cardbazaar tls init --dir ${empty}`),
    );
  });
});

import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { signedHeader, type TestCredentials, xmlRequest } from './helpers.js';

/**
 * cardbazaar as a process, as `npm start` runs it: demo data and credentials on first start, the
 * same credentials on the next start, nothing acknowledged lost to a kill, a clean Ctrl-C.
 */
const dir = mkdtempSync(join(tmpdir(), 'cardbazaar-proc-'));
const env = {
  ...process.env,
  DATABASE_URL: join(dir, 'p.sqlite'),
  LOG_LEVEL: 'warn',
  PORT: '0',
  HOST: '127.0.0.1',
};

interface Server {
  child: ChildProcess;
  base: string;
  output: () => string;
}

function serve(): Promise<Server> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve'], { env });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 60_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)\/ws\/v2\.0/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, base: m[1]!, output: () => out });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`server exited with ${code}:\n${out}`)));
  });
}

function demoCredentials(banner: string, username: string): TestCredentials {
  const start = banner.indexOf(`  ${username} — dedicated app`);
  const block = banner.slice(start, start + 400);
  const m = /appToken=(\S+)\s+appSecret=(\S+)\s+accessToken=(\S+)\s+accessTokenSecret=(\S+)/.exec(block);
  assert.ok(m, `no credentials for ${username} in:\n${banner}`);
  return {
    idApp: 0,
    kind: 'dedicated',
    idUser: 0,
    appToken: m[1]!,
    appSecret: m[2]!,
    accessToken: m[3]!,
    accessTokenSecret: m[4]!,
  };
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((r) => child.on('exit', (code) => r(code)));

describe('the server process', () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('starts with demo data, keeps every acknowledged write through a kill, and stops cleanly on SIGINT', async () => {
    const first = await serve();
    const cred = demoCredentials(first.output(), 'demo-buyer');
    const health = await fetch(`${first.base}/healthz`);
    assert.equal(health.status, 200);

    // Another process writes beside the running server (SQLite, WAL, BEGIN IMMEDIATE).
    const coupon = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'src/cli.ts', 'coupon', 'create', '--value', '5.00'],
      {
        env,
        encoding: 'utf8',
      },
    );
    assert.equal(coupon.status, 0, coupon.stderr);
    const { couponCode } = JSON.parse(coupon.stdout);

    const url = `${first.base}/ws/v2.0/output.json/account/coupon`;
    const res = await fetch(url, {
      method: 'POST',
      headers: { authorization: signedHeader(cred, 'POST', url), 'content-type': 'text/xml' },
      body: xmlRequest(`<couponCode>${couponCode}</couponCode>`),
    });
    assert.equal(res.status, 200);
    const redeemed = (await res.json()) as { coupon: Array<{ successful: boolean }> };
    assert.equal(redeemed.coupon[0]?.successful, true);
    first.child.kill('SIGKILL');
    await exited(first.child);

    const shown = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'src/cli.ts', 'user', 'show', 'demo-buyer'],
      {
        env,
        encoding: 'utf8',
      },
    );
    assert.equal(JSON.parse(shown.stdout).moneyDetails.bonusBalance, 5);

    const second = await serve();
    assert.doesNotMatch(second.output(), /loading the demo data/);
    assert.deepEqual(demoCredentials(second.output(), 'demo-buyer'), cred);
    // A request whose body is still arriving when SIGINT comes must still be answered.
    const couponUrl = `${second.base}/ws/v2.0/output.json/account/coupon`;
    const body = xmlRequest('<couponCode>NO-SUCH-CODE</couponCode>');
    const code = exited(second.child);
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(couponUrl, {
        method: 'POST',
        headers: {
          authorization: signedHeader(cred, 'POST', couponUrl),
          'content-type': 'text/xml',
          'content-length': Buffer.byteLength(body),
        },
      });
      req.on('response', (r) => {
        r.resume();
        resolve(r.statusCode ?? 0);
      });
      req.on('error', reject);
      req.write(body.slice(0, 20));
      setTimeout(() => {
        second.child.kill('SIGINT');
        setTimeout(() => req.end(body.slice(20)), 300);
      }, 300);
    });
    assert.equal(status, 200);
    assert.equal(await code, 0);
    assert.match(second.output(), /finishing in-flight requests/);
  });

  it('prints a "Try it" command that works as copied into a shell without its settings', async () => {
    const server = await serve();
    try {
      const hint = /Try it: npx cardbazaar (.+?) {3}\(base /.exec(server.output());
      assert.ok(hint, server.output());
      // The server runs on a random port and its own database: the command must say both.
      assert.match(hint[1]!, new RegExp(`--base-url ${server.base}(\\s|$)`));
      assert.match(hint[1]!, /--database-url \S+p\.sqlite/);
      const words = hint[1]!.split(' ').map((w) => w.replace(/^'(.*)'$/, '$1'));
      const { DATABASE_URL: _db, PORT: _port, HOST: _host, ...shell } = env;
      const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...words], {
        env: shell,
        encoding: 'utf8',
      });
      assert.equal(run.status, 0, run.stderr);
      assert.doesNotMatch(run.stderr, /answering in-process/);
      assert.match(run.stdout, /^HTTP 200$/m);
      assert.match(run.stdout, /"username": "demo-seller"/);
    } finally {
      server.child.kill('SIGINT');
      await exited(server.child);
    }
  });
});

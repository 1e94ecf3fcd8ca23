import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import type { SandboxCredentials, SandboxDocument } from '../src/sandbox/types.js';
import { signedHeader } from './helpers.js';

/**
 * `cardbazaar serve --port 0 --print-credentials json` as a client's test runner starts it: a real
 * process, in an empty working directory, read through its stdout.
 */
const CLI = resolve('src/cli.ts');
// Resolved here: the child runs in an empty directory, where `--import tsx` would find nothing.
const TSX = import.meta.resolve('tsx');
const cwd = mkdtempSync(join(tmpdir(), 'cardbazaar-sandbox-'));

interface Sandbox {
  child: ChildProcess;
  document: SandboxDocument;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
}

export function startProcess(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Sandbox> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', TSX, CLI, ...args], {
      cwd,
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
      try {
        done({ child, document: JSON.parse(out.slice(0, end)), stdout: () => out, stderr: () => err, exit });
      } catch (e) {
        fail(new Error(`stdout does not start with a JSON line: ${String(e)}\n${out}`));
      }
    });
    void exit.then((code) => {
      clearTimeout(timer);
      fail(new Error(`exited with ${code} before printing a document:\n${out}\n${err}`));
    });
  });
}

function run(args: string[], env: NodeJS.ProcessEnv = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
    const child = spawn(process.execPath, ['--import', TSX, CLI, ...args], {
      cwd,
      env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => done({ code, stdout, stderr }));
  });
}

async function signedGet(cred: SandboxCredentials, url: string) {
  const res = await fetch(url, {
    headers: { authorization: signedHeader({ ...cred, idUser: cred.idOwner }, 'GET', url) },
  });
  return { status: res.status, body: (await res.json().catch(() => undefined)) as any };
}

const SERVE = ['serve', '--port', '0', '--database-url', ':memory:', '--print-credentials', 'json'];

describe('serve --port 0 --print-credentials json', () => {
  after(() => rmSync(cwd, { recursive: true, force: true }));

  it('prints one JSON document whose credentials of every kind sign requests, touches no disk, and stops on SIGTERM', async () => {
    const sandbox = await startProcess(SERVE);
    try {
      const doc = sandbox.document;
      assert.match(doc.baseUrl, /^http:\/\/127\.0\.0\.1:\d+\/ws\/v2\.0$/);
      assert.notEqual(doc.baseUrl, 'http://127.0.0.1:0/ws/v2.0');
      assert.equal(doc.jsonBaseUrl, `${doc.baseUrl}/output.json`);
      assert.equal(doc.database, ':memory:');
      assert.equal(doc.demoPassword, 'cardbazaar-demo');
      assert.deepEqual(
        doc.users.map((u) => u.username),
        ['demo-seller', 'demo-buyer', 'demo-powerseller'],
      );
      const [seller, buyer, power] = doc.users;
      assert.deepEqual(Object.keys(seller!.apps).sort(), ['dedicated', 'widget']);
      assert.deepEqual(Object.keys(buyer!.apps).sort(), ['dedicated', 'thirdParty']);
      assert.deepEqual(Object.keys(power!.apps), ['dedicated']);
      assert.equal(seller!.apps.widget!.accessToken, '');
      assert.equal(buyer!.apps.thirdParty!.idOwner, seller!.idUser);

      // Each set signs as the user it is listed under.
      for (const user of doc.users) {
        const r = await signedGet(user.apps.dedicated!, `${doc.jsonBaseUrl}/account`);
        assert.equal(r.status, 200, JSON.stringify(r.body));
        assert.equal(r.body.account.idUser, user.idUser);
        assert.equal(r.body.account.username, user.username);
      }
      const third = await signedGet(buyer!.apps.thirdParty!, `${doc.jsonBaseUrl}/account`);
      assert.equal(third.status, 200);
      assert.equal(third.body.account.username, 'demo-buyer');
      const widget = await signedGet(seller!.apps.widget!, `${doc.jsonBaseUrl}/games`);
      assert.equal(widget.status, 200);
      assert.ok(widget.body.game.length > 0);
      // XML through the plain base URL.
      const xmlUrl = `${doc.baseUrl}/account`;
      const xml = await fetch(xmlUrl, {
        headers: { authorization: signedHeader({ ...buyer!.apps.dedicated!, idUser: 0 }, 'GET', xmlUrl) },
      });
      assert.equal(xml.status, 200);
      assert.match(await xml.text(), /<username>demo-buyer<\/username>/);

      // Only the document on stdout; the banner went to stderr.
      assert.equal(sandbox.stdout().trim().split('\n').length, 1);
      assert.match(sandbox.stderr(), /listening on http:\/\/127\.0\.0\.1:\d+\/ws\/v2\.0/);
      assert.deepEqual(readdirSync(cwd), [], 'an in-memory sandbox writes nothing (no data/, no secret.key)');

      sandbox.child.kill('SIGTERM');
      assert.equal(await sandbox.exit, 0);
      assert.match(sandbox.stderr(), /SIGTERM: finishing in-flight requests/);
    } finally {
      sandbox.child.kill('SIGKILL');
    }
  });

  it('stops cleanly when its standard input closes (the parent went away)', async () => {
    const sandbox = await startProcess(SERVE);
    try {
      const health = await fetch(sandbox.document.baseUrl.replace(/\/ws\/v2\.0$/, '/healthz'));
      assert.equal(health.status, 200);
      sandbox.child.stdin!.end();
      assert.equal(await sandbox.exit, 0);
      assert.match(sandbox.stderr(), /standard input closed: finishing in-flight requests/);
      await assert.rejects(fetch(sandbox.document.baseUrl.replace(/\/ws\/v2\.0$/, '/healthz')));
    } finally {
      sandbox.child.kill('SIGKILL');
    }
  });

  it('refuses another format, and refuses to print credentials in production', async () => {
    const xml = await run([
      'serve',
      '--port',
      '0',
      '--database-url',
      ':memory:',
      '--print-credentials',
      'xml',
    ]);
    assert.equal(xml.code, 1);
    assert.match(xml.stderr, /--print-credentials takes "json", not "xml"/);
    assert.equal(xml.stdout, '');
    const production = await run(
      ['serve', '--port', '0', '--database-url', ':memory:', '--print-credentials', 'json'],
      {
        NODE_ENV: 'production',
        SECRET_KEY: 'a-production-secret-key-of-enough-length-0123',
        PUBLIC_BASE_URL: 'https://api.example.org',
      },
    );
    assert.equal(production.code, 1);
    assert.match(production.stderr, /sandbox only/);
    assert.equal(production.stdout, '');
  });
});

import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { testConfig } from '../src/config.js';
import { runCli } from './cli-helpers.js';
import {
  ApiClient,
  DIALECTS,
  signedHeader,
  startTestServer,
  type TestCredentials,
  type TestServer,
} from './helpers.js';

/**
 * A revoked or regenerated access token, a logout, or a revoked app answers 401 on the very next
 * request to every instance: here a server in a child process (its own credential cache) and one in
 * this process (the CLI runs here too) on the same database.
 */

const SECRET_KEY = testConfig().secretKey!;

interface ChildServer {
  child: ChildProcess;
  base: string;
}

function serveInChild(databaseUrl: string): Promise<ChildServer> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve'], {
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        SECRET_KEY,
        DEMO_DATA: 'false',
        LIMITS_ENABLED: 'false',
        LOG_LEVEL: 'warn',
        PORT: '0',
        HOST: '127.0.0.1',
      },
    });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 60_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)\/ws\/v2\.0/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, base: m[1]! });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`server exited with ${code}:\n${out}`)));
  });
}

for (const dialect of DIALECTS) {
  describe(`revocation reaches every process at once (${dialect})`, () => {
    let dir: string;
    let local: TestServer;
    let remote: ChildServer;
    let databaseUrl: string;
    const cli = (...args: string[]) =>
      runCli('--database-url', databaseUrl, '--secret-key', SECRET_KEY, ...args);

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'cardbazaar-revoke-'));
      local = await startTestServer(
        dialect === 'sqlite' ? { config: { databaseUrl: join(dir, 'db.sqlite') } } : { dialect },
      );
      databaseUrl = local.services.config.databaseUrl;
      remote = await serveInChild(databaseUrl);
    });
    after(async () => {
      remote.child.kill('SIGTERM');
      await new Promise((r) => remote.child.once('exit', r));
      await local.close();
      rmSync(dir, { recursive: true, force: true });
    });

    /** GET /account on the child process's server, over HTTP. */
    async function remoteAccount(cred: TestCredentials, method = 'GET', path = '/account') {
      const url = `${remote.base}/ws/v2.0/output.json${path}`;
      const res = await fetch(url, { method, headers: { authorization: signedHeader(cred, method, url) } });
      return { status: res.status, json: (await res.json()) as Record<string, any> };
    }
    const localAccount = (cred: TestCredentials) =>
      new ApiClient(local, cred).get('/account', { json: true });

    let seq = 0;
    async function newUser(): Promise<string> {
      const username = `rev${++seq}`;
      const res = await cli('user', 'create', '--username', username);
      assert.equal(res.code, 0, res.err);
      return username;
    }
    async function newApp(username: string, kind: string) {
      const res = await cli('app', 'create', '--user', username, '--kind', kind);
      assert.equal(res.code, 0, res.err);
      return JSON.parse(res.out) as Record<string, any>;
    }
    const credentials = (
      app: Record<string, any>,
      token: { accessToken: string; accessTokenSecret: string },
    ): TestCredentials => ({
      idApp: app.idApp,
      kind: app.kind,
      idUser: 0,
      appToken: app.appToken,
      appSecret: app.appSecret,
      accessToken: token.accessToken,
      accessTokenSecret: token.accessTokenSecret,
    });

    /** Both servers have just verified these credentials, so both hold them in their caches. */
    async function warm(cred: TestCredentials) {
      assert.equal((await remoteAccount(cred)).status, 200);
      assert.equal((await remoteAccount(cred)).status, 200);
      assert.equal((await localAccount(cred)).status, 200);
    }

    function assert401(res: { status: number; json: Record<string, any> }, code: string) {
      assert.equal(res.status, 401, JSON.stringify(res.json));
      assert.equal(res.json.internal_error_code, code);
    }

    it('`token revoke` from the command line', async () => {
      const app = await newApp(await newUser(), 'dedicated');
      const cred = credentials(app, app as never);
      await warm(cred);
      assert.equal((await cli('token', 'revoke', String(app.idAccessToken))).code, 0);
      assert401(await remoteAccount(cred), 'revoked_access_token');
      assert401(await localAccount(cred), 'revoked_access_token');
    });

    it('a dedicated token regenerated with `token create`: the old one is refused, the new one works', async () => {
      const username = await newUser();
      const app = await newApp(username, 'dedicated');
      const old = credentials(app, app as never);
      await warm(old);
      const res = await cli('token', 'create', '--app', String(app.idApp), '--user', username);
      assert.equal(res.code, 0, res.err);
      const fresh = credentials(app, JSON.parse(res.out));
      assert401(await remoteAccount(old), 'revoked_access_token');
      assert.equal((await remoteAccount(fresh)).status, 200);
    });

    it('`app revoke` from the command line', async () => {
      const app = await newApp(await newUser(), 'dedicated');
      const cred = credentials(app, app as never);
      await warm(cred);
      assert.equal((await cli('app', 'revoke', String(app.idApp))).code, 0);
      assert401(await remoteAccount(cred), 'revoked_app');
      assert401(await localAccount(cred), 'revoked_app');
    });

    it('a logout on one instance is refused by the other, both ways', async () => {
      const owner = await newUser();
      const user = await newUser();
      const app = await newApp(owner, 'third-party');
      const tokens = [];
      for (let i = 0; i < 2; i++) {
        const res = await cli('token', 'create', '--app', String(app.idApp), '--user', user);
        tokens.push(credentials(app, JSON.parse(res.out)));
      }
      const [first, second] = tokens as [TestCredentials, TestCredentials];
      await warm(first);
      await warm(second);
      // Logout here (this process), next request there.
      assert.equal(
        (await new ApiClient(local, first).post('/account/logout', undefined, { json: true })).status,
        200,
      );
      assert401(await remoteAccount(first), 'revoked_access_token');
      // Logout there, next request here.
      assert.equal((await remoteAccount(second, 'POST', '/account/logout')).status, 200);
      assert401(await localAccount(second), 'revoked_access_token');
    });
  });
}

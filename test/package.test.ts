import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import type { SandboxDocument } from '../src/sandbox/types.js';
import { signedHeader } from './helpers.js';

/**
 * cardbazaar as another project's dependency: `npm pack`, the tarball installed into an empty
 * project, `npx cardbazaar serve --port 0 --print-credentials json`, and `startSandbox` in both
 * modes, each answering a signed request; the published types checked by tsc.
 *
 * One shortcut, for time only: the temporary project takes better-sqlite3 from this checkout
 * (an `overrides` entry to its built folder) and installs with `--ignore-scripts`. Otherwise npm
 * compiles SQLite from source again (no prebuilt binary is reachable here): minutes of C for
 * nothing this test checks. Every other dependency comes from the registry as for any user.
 */
const ROOT = resolve('.');
const npm = spawnSync('npm', ['--version'], { encoding: 'utf8' });
const NO_NPM = npm.status !== 0 ? 'npm is not available on this machine' : false;
const dir = mkdtempSync(join(tmpdir(), 'cardbazaar-pack-'));
const project = join(dir, 'client');

function sh(cmd: string, args: string[], cwd: string) {
  const r = spawnSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')} failed:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** The first line a process prints, parsed, once it comes. */
function firstJsonLine(child: ChildProcess): Promise<SandboxDocument> {
  return new Promise((done, fail) => {
    let out = '';
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const end = out.indexOf('\n');
      if (end >= 0) done(JSON.parse(out.slice(0, end)));
    });
    child.on('exit', (code) => fail(new Error(`exited ${code} first:\n${out}\n${err}`)));
  });
}

// A client's own script: no test helpers, its own OAuth signer, the package's API.
const CLIENT = `
import { createHmac, randomBytes } from 'node:crypto';
import { startSandbox } from 'cardbazaar';

const enc = (s) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
function authorization(cred, method, url) {
  const p = {
    oauth_consumer_key: cred.appToken, oauth_token: cred.accessToken, oauth_nonce: randomBytes(16).toString('hex'),
    oauth_timestamp: String(Math.floor(Date.now() / 1000)), oauth_signature_method: 'HMAC-SHA1', oauth_version: '1.0',
  };
  const params = Object.keys(p).sort().map((k) => enc(k) + '=' + enc(p[k])).join('&');
  const base = [method, enc(url), enc(params)].join('&');
  p.oauth_signature = createHmac('sha1', enc(cred.appSecret) + '&' + enc(cred.accessTokenSecret)).update(base).digest('base64');
  return 'OAuth realm="' + enc(url) + '", ' + Object.keys(p).map((k) => k + '="' + enc(p[k]) + '"').join(', ');
}

const results = {};
for (const mode of ['in-process', 'child']) {
  const sandbox = await startSandbox({ mode });
  const buyer = sandbox.users.find((u) => u.username === 'demo-buyer');
  const url = sandbox.jsonBaseUrl + '/account';
  const res = await fetch(url, { headers: { authorization: authorization(buyer.apps.dedicated, 'GET', url) } });
  const body = await res.json();
  await sandbox.stop();
  const after = await fetch(sandbox.websiteUrl + 'healthz').then(() => 'answering', () => 'stopped');
  results[mode] = { status: res.status, username: body.account?.username, after, baseUrl: sandbox.baseUrl };
}
console.log(JSON.stringify(results));
`;

const TYPES = `
import { startSandbox, type SandboxDocument, type SandboxCredentials } from 'cardbazaar';
const sandbox = await startSandbox({ mode: 'child', databaseUrl: ':memory:', env: { LIMITS_ENABLED: 'false' } });
const doc: SandboxDocument = sandbox;
const cred: SandboxCredentials | undefined = doc.users[0]?.apps.thirdParty;
const base: string = doc.baseUrl;
await sandbox.stop();
export { cred, base };
`;

describe('the npm package', { skip: NO_NPM }, () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  // Under a minute on an idle machine; a busy shared one (load 25 on 2 cores) took minutes.
  it(
    'packs, installs into an empty project, and runs there with npx and startSandbox (both modes)',
    { timeout: 900_000 },
    async () => {
      const packed = JSON.parse(sh('npm', ['pack', '--json', '--pack-destination', dir], ROOT)) as Array<{
        filename: string;
        files: Array<{ path: string }>;
      }>;
      const files = packed[0]!.files.map((f) => f.path);
      for (const f of [
        'bin/cardbazaar.js',
        'dist/cli.js',
        'dist/index.js',
        'dist/types/public.d.ts',
        'src/web/views/_field.eta',
      ])
        assert.ok(files.includes(f), `${f} is in the tarball`);
      assert.ok(
        !files.some((f) => f.startsWith('test/') || f.startsWith('src/domain') || f.endsWith('.map')),
        'no tests, sources or maps',
      );

      sh('mkdir', ['-p', project], dir);
      writeFileSync(
        join(project, 'package.json'),
        JSON.stringify({
          name: 'client-tests',
          private: true,
          type: 'module',
          overrides: { 'better-sqlite3': `file:${join(ROOT, 'node_modules', 'better-sqlite3')}` },
        }),
      );
      sh(
        'npm',
        [
          'install',
          join(dir, packed[0]!.filename),
          '--ignore-scripts',
          '--prefer-offline',
          '--no-audit',
          '--no-fund',
        ],
        project,
      );

      // npx cardbazaar, as a client's CI job runs it, in parallel with the script below.
      const npx = spawn(
        'npx',
        ['cardbazaar', 'serve', '--port', '0', '--database-url', ':memory:', '--print-credentials', 'json'],
        {
          cwd: project,
        },
      );
      writeFileSync(join(project, 'client.mjs'), CLIENT);
      const script = new Promise<string>((done, fail) => {
        const child = spawn(process.execPath, ['client.mjs'], { cwd: project });
        let out = '';
        let err = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.stderr.on('data', (d: Buffer) => (err += d.toString()));
        child.on('exit', (code) =>
          code === 0 ? done(out) : fail(new Error(`client.mjs exited ${code}:\n${out}\n${err}`)),
        );
      });
      try {
        const doc = await firstJsonLine(npx);
        const seller = doc.users.find((u) => u.username === 'demo-seller')!;
        const url = `${doc.jsonBaseUrl}/account`;
        const res = await fetch(url, {
          headers: {
            authorization: signedHeader({ ...seller.apps.dedicated!, idUser: seller.idUser }, 'GET', url),
          },
        });
        assert.equal(res.status, 200);
        assert.equal(
          ((await res.json()) as { account: { username: string } }).account.username,
          'demo-seller',
        );
        const exited = new Promise<number | null>((r) => npx.on('exit', (code) => r(code)));
        npx.stdin.end();
        assert.equal(await exited, 0);
      } finally {
        npx.kill('SIGKILL');
      }

      const results = JSON.parse(await script);
      for (const mode of ['in-process', 'child']) {
        assert.equal(results[mode].status, 200, mode);
        assert.equal(results[mode].username, 'demo-buyer', mode);
        assert.equal(results[mode].after, 'stopped', mode);
        assert.match(results[mode].baseUrl, /^http:\/\/127\.0\.0\.1:\d+\/ws\/v2\.0$/);
      }
      assert.ok(!existsSync(join(project, 'data')), 'in-memory sandboxes wrote nothing');

      // The published types: a correct use compiles, a wrong one does not.
      const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
      const tsconfig = {
        compilerOptions: {
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: [],
        },
        files: ['check.ts'],
      };
      writeFileSync(join(project, 'tsconfig.json'), JSON.stringify(tsconfig));
      writeFileSync(join(project, 'check.ts'), TYPES);
      const ok = spawnSync(process.execPath, [tsc, '-p', project], { encoding: 'utf8' });
      assert.equal(ok.status, 0, ok.stdout);
      writeFileSync(
        join(project, 'check.ts'),
        `${TYPES}\nconst wrong: number = base;\nawait startSandbox({ mode: 'thread' });\n`,
      );
      const bad = spawnSync(process.execPath, [tsc, '-p', project], { encoding: 'utf8' });
      assert.notEqual(bad.status, 0);
      assert.match(bad.stdout, /Type 'string' is not assignable to type 'number'/);
      assert.match(bad.stdout, /"thread"/);
    },
  );
});

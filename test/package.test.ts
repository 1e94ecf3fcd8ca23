import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import type { SandboxDocument } from '../src/sandbox/types.js';
import { signedHeader } from './helpers.js';
import { DOC_PAGES, markdownTargets } from '../src/web/guides.js';

/**
 * cardbazaar as another project's dependency, as the README's "Testing your client" says: `npm
 * pack`, the tarball installed into an empty project, `npx cardbazaar serve --port 0
 * --print-credentials json`, `npx cardbazaar fixtures run` with an example fixture from the package,
 * signed requests with the printed and the created credentials, a snapshot saved, a fault that a
 * request hits, cleared, a change, the snapshot loaded (issue 14's "Done means"), and
 * `startSandbox` in both modes; the published types checked by tsc.
 *
 * One shortcut, for time only: the temporary project takes better-sqlite3 from this checkout
 * (an `overrides` entry to its built folder) and installs with `--ignore-scripts`. Otherwise npm
 * compiles SQLite from source again (no prebuilt binary is reachable here): minutes of C for
 * nothing this test checks. Every other dependency comes from the registry as for any user.
 */
const ROOT = resolve('.');
/** The pictures the guides show (`docs/images/…`), as paths in the package. */
const guideImages = DOC_PAGES.flatMap((page) =>
  markdownTargets(readFileSync(join(ROOT, 'docs', `${page}.md`), 'utf8'))
    .filter((target) => target.startsWith('images/'))
    .map((target) => `docs/${target}`),
);
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

// Compiles only if the published types are there and right: the marked lines must be errors.
const TYPES = `
import { startSandbox, type SandboxDocument, type SandboxCredentials } from 'cardbazaar';
const sandbox = await startSandbox({ mode: 'child', databaseUrl: ':memory:', env: { LIMITS_ENABLED: 'false' } });
const doc: SandboxDocument = sandbox;
const cred: SandboxCredentials | undefined = doc.users[0]?.apps.thirdParty;
const base: string = doc.baseUrl;
// @ts-expect-error the base URL is a string
const wrong: number = doc.baseUrl;
// @ts-expect-error no such mode
await startSandbox({ mode: 'thread' });
await sandbox.stop();
export { cred, base, wrong };
`;

/** Runs a command to its end without blocking the event loop (other steps run meanwhile). */
function run(cmd: string, args: string[], cwd: string): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn(cmd, args, { cwd, env: { ...process.env, npm_config_update_notifier: 'false' } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) =>
      code === 0 ? done(out) : fail(new Error(`${cmd} ${args.join(' ')} exited ${code}:\n${out}\n${err}`)),
    );
  });
}

/** The Node releases the package promises to run on: the first 20 it needs, and the 22 and 24 LTS lines. */
const NODE_LINES = ['20.19.0', '22.13.0', '24.0.0'];

describe('the Node versions it declares (docs/developing.md, "Dependencies")', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    engines: { node: string };
  };
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string; dev?: boolean; engines?: { node?: string } | string[] }>;
  };

  it('declares Node 20.19 or later with no upper bound, in package.json and the lockfile', () => {
    assert.equal(pkg.engines.node, '>=20.19');
    assert.deepEqual(lock.packages['']!.engines, { node: '>=20.19' });
  });

  it('installs nothing, for running the server, that declares against Node 20, 22 or 24', () => {
    // The lockfile records each installed package's own `engines` (what `npm view` shows for
    // that version), so this checks what a user gets, transitive packages included. semver is
    // npm's own range reader, installed here through other packages.
    const semver = createRequire(import.meta.url)('semver') as {
      satisfies(version: string, range: string): boolean;
    };
    const refused: string[] = [];
    let checked = 0;
    for (const [path, info] of Object.entries(lock.packages)) {
      if (path === '' || info.dev) continue;
      checked++;
      const range = Array.isArray(info.engines) ? undefined : info.engines?.node;
      if (range === undefined) continue;
      for (const node of NODE_LINES)
        if (!semver.satisfies(node, range))
          refused.push(`${path}@${info.version} (${range}) refuses ${node}`);
    }
    assert.ok(checked > 100, `the lockfile lists the runtime packages (${checked})`);
    assert.deepEqual(refused, []);
  });
});

describe('the parity table in the package (issue 32)', { skip: NO_NPM }, () => {
  it('packs docs/parity.md, which /docs links as a reference page', () => {
    // A dry run lists what `npm pack` would put in the tarball, in a second, with no build.
    const packed = JSON.parse(sh('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], ROOT)) as Array<{
      files: Array<{ path: string }>;
    }>;
    assert.ok(packed[0]!.files.some((f) => f.path === 'docs/parity.md'));
    assert.ok(DOC_PAGES.includes('parity'), 'served at /docs/parity and listed on /docs');
  });
});

describe('the npm package', { skip: NO_NPM }, () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  // About a minute of CPU (measured: 46-54 s user); on a shared 2-core machine at load 25, 3-5 min.
  it(
    'packs, installs into an empty project, runs there with npx (a fixture, a snapshot, a fault, signed requests) and startSandbox (both modes)',
    { timeout: 900_000 },
    async () => {
      // What `prepare` does when `npm pack` runs it, done first only when something changed, so
      // the pack itself need not run a no-op TypeScript build (seconds on an idle machine, a
      // minute on a busy one).
      sh(process.execPath, ['scripts/build-if-changed.mjs'], ROOT);
      sh(
        process.execPath,
        [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.types.json'],
        ROOT,
      );
      const packed = JSON.parse(
        sh('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], ROOT),
      ) as Array<{ filename: string; files: Array<{ path: string }> }>;
      const files = packed[0]!.files.map((f) => f.path);
      for (const f of [
        'bin/cardbazaar.js',
        'dist/cli.js',
        'dist/index.js',
        'dist/types/public.d.ts',
        'src/web/views/layout.eta',
        // The recorded examples the served OpenAPI document shows.
        'docs/openapi-examples.json',
        // The guides the server renders at /docs/<guide>, and the pictures they show.
        ...DOC_PAGES.map((page) => `docs/${page}.md`),
        ...guideImages,
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
      writeFileSync(join(project, 'client.mjs'), CLIENT);
      writeFileSync(
        join(project, 'tsconfig.json'),
        JSON.stringify({
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
        }),
      );
      writeFileSync(join(project, 'check.ts'), TYPES);

      // Three things at once: the client's script (startSandbox both ways), the type check, and npx.
      const script = run(process.execPath, ['client.mjs'], project);
      const types = run(
        process.execPath,
        [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', project],
        project,
      );
      // A file database: `fixtures run`, another process, builds its world there.
      const npx = spawn(
        'npx',
        [
          'cardbazaar',
          'serve',
          '--port',
          '0',
          '--database-url',
          'world.sqlite',
          '--print-credentials',
          'json',
        ],
        { cwd: project },
      );
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

        // The README's flow: a fixture from the installed package, then a request with what it made.
        const fixture = JSON.parse(
          await run(
            'npx',
            [
              'cardbazaar',
              '--database-url',
              'world.sqlite',
              'fixtures',
              'run',
              'node_modules/cardbazaar/examples/fixtures/shop.yaml',
            ],
            project,
          ),
        );
        const orderUrl = `${doc.jsonBaseUrl}/order/${fixture.sent.idOrder}`;
        const order = await fetch(orderUrl, {
          headers: { authorization: signedHeader({ ...fixture.sellerTool, idUser: 0 }, 'GET', orderUrl) },
        });
        assert.equal(order.status, 200);
        const sent = ((await order.json()) as { order: { state: { state: string }; trackingNumber: string } })
          .order;
        assert.equal(sent.state.state, 'sent');
        assert.equal(sent.trackingNumber, 'RR123456785DE');

        // The rest of the README's flow: save the world, break it, mend it, change it, bring it back.
        const cardbazaar = (...args: string[]) =>
          run('npx', ['cardbazaar', '--database-url', 'world.sqlite', ...args], project);
        const getOrder = () =>
          fetch(orderUrl, {
            headers: { authorization: signedHeader({ ...fixture.sellerTool, idUser: 0 }, 'GET', orderUrl) },
          });
        const saved = JSON.parse(await cardbazaar('snapshot', 'save', 'clean')) as { name: string };
        assert.equal(saved.name, 'clean');
        await cardbazaar('faults', 'add', '--path', '/order/*', '--method', 'GET', '--status', '503');
        const faulted = await getOrder();
        assert.equal(faulted.status, 503, 'the client request hits the fault');
        assert.ok(faulted.headers.get('retry-after'), 'with Retry-After, as the live Slow Down');
        assert.match(JSON.stringify(await faulted.json()), /Slow Down/);
        await cardbazaar('faults', 'clear');
        assert.equal((await getOrder()).status, 200, 'cleared: normal answers again');
        const vacationUrl = `${doc.jsonBaseUrl}/account/vacation?onVacation=true`;
        const sellerCred = { ...seller.apps.dedicated!, idUser: seller.idUser };
        const onVacation = await fetch(vacationUrl, {
          method: 'PUT',
          headers: { authorization: signedHeader(sellerCred, 'PUT', vacationUrl) },
        });
        assert.equal(onVacation.status, 200);
        await cardbazaar('snapshot', 'load', 'clean');
        const restored = await fetch(url, {
          headers: { authorization: signedHeader(sellerCred, 'GET', url) },
        });
        assert.equal(restored.status, 200);
        assert.equal(
          ((await restored.json()) as { account: { onVacation: boolean } }).account.onVacation,
          false,
          'the snapshot brought back the world before the change',
        );
        assert.equal((await getOrder()).status, 200);

        // The documentation, read from the installed package's own files.
        const guide = await fetch(`${doc.websiteUrl}docs/testing-your-client`);
        assert.equal(guide.status, 200);
        assert.match(await guide.text(), /<h1 id="testing-your-client-against-cardbazaar">/);
        for (const image of guideImages) {
          const picture = await fetch(`${doc.websiteUrl}${image}`);
          assert.equal(picture.status, 200, image);
          assert.equal(picture.headers.get('content-type'), 'image/png', image);
        }

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
      // The published types: the correct uses compile and the two marked mistakes are errors.
      await types;
    },
  );
});

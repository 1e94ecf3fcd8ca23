import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

/** The `cardbazaar` command, run as a user would, on a database of its own. */
const dir = mkdtempSync(join(tmpdir(), 'cardbazaar-cli-'));
const env = { ...process.env, DATABASE_URL: join(dir, 'cli.sqlite'), LOG_LEVEL: 'warn', PORT: '1' };

function cli(...args: string[]) {
  const res = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
    env,
    encoding: 'utf8',
  });
  return { status: res.status, stdout: res.stdout, stderr: res.stderr };
}
function json(...args: string[]) {
  const res = cli(...args);
  assert.equal(res.status, 0, res.stderr);
  return JSON.parse(res.stdout);
}

describe('the cardbazaar command', () => {
  before(() => {
    assert.equal(cli('migrate').status, 0);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('lists its commands in --help', () => {
    const help = cli('--help').stdout;
    for (const c of ['serve', 'migrate', 'seed', 'user', 'app', 'token', 'coupon', 'clock', 'request']) {
      assert.match(help, new RegExp(`\\n  ${c}\\b`), c);
    }
  });

  it('creates users with country, account type and balance', () => {
    const account = json(
      'user',
      'create',
      '--username',
      'alice',
      '--country',
      'DE',
      '--type',
      'professional',
      '--balance',
      '12,50',
    );
    assert.equal(account.username, 'alice');
    assert.equal(account.country, 'D');
    assert.equal(account.isCommercial, 1);
    assert.equal(account.moneyDetails.moneyBalance, 12.5);
    const again = cli('user', 'create', '--username', 'alice');
    assert.equal(again.status, 1);
    assert.match(again.stderr, /taken/);
    assert.equal(cli('user', 'create', '--username', 'bob', '--type', 'emperor').status, 1);
  });

  it('creates apps of each kind and prints their credentials as JSON', () => {
    const dedicated = json('app', 'create', '--user', 'alice', '--kind', 'dedicated');
    assert.equal(dedicated.kind, 'dedicated');
    assert.ok(dedicated.appToken.length >= 16 && dedicated.appSecret.length >= 32);
    assert.ok(dedicated.accessToken.length >= 32 && dedicated.accessTokenSecret.length >= 32);
    const widget = json('app', 'create', '--user', 'alice', '--kind', 'widget');
    assert.equal(widget.accessToken, undefined);
    const third = json(
      'app',
      'create',
      '--user',
      'alice',
      '--kind',
      'third-party',
      '--callback-url',
      'https://x.test/cb',
    );
    assert.equal(third.kind, 'thirdParty');
    // The callback follows the profile page's rule: no fragment (not even an empty one), https.
    const refused = cli(
      'app',
      'create',
      '--user',
      'alice',
      '--kind',
      'third-party',
      '--callback-url',
      'https://x.test/cb#',
    );
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /--callback-url: A callback URL has no .*#fragment/);
    const token = json('token', 'create', '--app', String(third.idApp), '--user', 'alice');
    assert.ok(token.accessToken.length >= 32);
    const shown = json('app', 'show', '--user', 'alice');
    assert.equal(shown.length, 3);
    assert.equal(shown[0].appToken, dedicated.appToken);
  });

  it('makes signed requests as a user, and revocation takes effect', () => {
    const ok = cli('request', 'GET', '/account', '--user', 'alice', '--json', '--in-process');
    assert.equal(ok.status, 0, ok.stderr);
    assert.match(ok.stdout, /HTTP 200/);
    assert.match(ok.stdout, /"username": "alice"/);
    const xml = cli('request', 'GET', '/account', '--user', 'alice', '--in-process');
    assert.match(xml.stdout, /<username>alice<\/username>/);
    const apps = json('app', 'show', '--user', 'alice');
    assert.equal(cli('app', 'revoke', String(apps[0].idApp)).status, 0);
    const refused = cli(
      'request',
      'GET',
      '/account',
      '--user',
      'alice',
      '--json',
      '--in-process',
      '--app',
      String(apps[0].idApp),
    );
    assert.match(refused.stdout, /HTTP 401/);
  });

  it("signs with another user's third-party app holding a token for the user, and shows a revoked token's 401", () => {
    json('user', 'create', '--username', 'carol');
    json('user', 'create', '--username', 'dave');
    const third = json('app', 'create', '--user', 'alice', '--kind', 'third-party');
    const token = json('token', 'create', '--app', String(third.idApp), '--user', 'carol');
    const asCarol = ['request', 'GET', '/account', '--user', 'carol', '--json', '--in-process'];
    const ok = cli(...asCarol, '--app', String(third.idApp));
    assert.equal(ok.status, 0, ok.stderr);
    assert.match(ok.stdout, /HTTP 200/);
    assert.match(ok.stdout, /"username": "carol"/);
    assert.equal(cli('token', 'revoke', String(token.idAccessToken)).status, 0);
    const revoked = cli(...asCarol, '--app', String(third.idApp));
    assert.match(revoked.stdout, /HTTP 401/);
    assert.match(revoked.stdout, /revoked_access_token/);
    const none = cli(
      'request',
      'GET',
      '/account',
      '--user',
      'dave',
      '--in-process',
      '--app',
      String(third.idApp),
    );
    assert.equal(none.status, 1);
    assert.match(none.stderr, /no app/);
  });

  it('creates coupons, funds users and moves the sandbox clock', () => {
    const coupon = json('coupon', 'create', '--value', '5.00');
    assert.ok(coupon.couponCode.length >= 8);
    const funded = json('user', 'fund', 'alice', '10.00');
    assert.equal(funded.moneyDetails.moneyBalance, 22.5);
    const moved = cli('clock', 'advance', '8d');
    assert.equal(moved.status, 0, moved.stderr);
    assert.match(moved.stdout, /offset 192 h/);
    assert.equal(cli('clock', 'advance', 'soon').status, 1);
    assert.match(cli('clock', 'reset').stdout, /offset 0 h/);
  });
});

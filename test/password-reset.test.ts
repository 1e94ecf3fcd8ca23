import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { SMTPServer } from 'smtp-server';
import { runCli } from './cli-helpers.js';
import { startFileTestServer, startTestServer, type TestServer } from './helpers.js';
import { textOf, WebClient } from './web-client.js';

/**
 * A forgotten password: the link arrives by email on an SMTP server this test starts, works once,
 * for an hour; `cardbazaar user reset-link` prints one and `user password` sets one from stdin.
 */
describe('password reset', () => {
  let server: TestServer;
  let smtp: SMTPServer;
  const inbox: string[] = [];
  before(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, _session, callback) {
        let text = '';
        stream.on('data', (c: Buffer) => (text += c.toString()));
        stream.on('end', () => {
          inbox.push(text);
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    const port = (smtp.server.address() as { port: number }).port;
    server = await startTestServer({
      config: { smtpUrl: `smtp://127.0.0.1:${port}`, mailFrom: 'cardbazaar <shop@example.org>' },
    });
  });
  after(async () => {
    await server.close();
    await new Promise<void>((resolve) => smtp.close(resolve));
  });

  it('emails a one-time link that sets a new password and signs out everywhere', async () => {
    const web = new WebClient(server);
    await web.register('forgetful', 'old password 1');
    await web.get('/password/forgot');
    const asked = await web.post('/password/forgot', { login: 'forgetful@example.org' });
    assert.equal(asked.status, 303);
    assert.equal(asked.location, '/login');
    const before = inbox.length;
    const unknown = await web.post('/password/forgot', { login: 'nobody-at-all' });
    assert.equal(unknown.location, '/login', 'the same answer for an unknown account');
    assert.equal(inbox.length, before, 'and no email');
    const empty = await web.post('/password/forgot', { login: '  ' });
    assert.equal(empty.status, 400);
    assert.match(textOf(empty.text), /This field is required\./);
    assert.equal(inbox.length, before);
    const mail = inbox
      .at(-1)!
      .replace(/=\r?\n/g, '')
      .replace(/=3D/g, '=');
    assert.match(mail, /To: forgetful@example.org/);
    const link = /http:\/\/[^\s]+\/password\/reset\/([A-Za-z0-9_-]+)/.exec(mail)!;
    const path = new URL(link[0]).pathname;

    const form = await new WebClient(server).get(path);
    assert.equal(form.status, 200);
    const stranger = new WebClient(server);
    await stranger.get(path);
    const short = await stranger.post(path, { password: 'short' });
    assert.equal(short.status, 400);
    assert.match(short.text, /at least 8 characters/);
    const done = await stranger.post(path, { password: 'new password 2' });
    assert.equal(done.location, '/login');
    assert.equal((await web.get('/profile')).status, 303, 'the old session ended');
    assert.equal((await new WebClient(server).signIn('forgetful', 'old password 1')).status, 401);
    assert.equal((await new WebClient(server).signIn('forgetful', 'new password 2')).status, 303);
    const reused = await new WebClient(server).get(path);
    assert.equal(reused.status, 400);
    assert.match(reused.text, /not valid/);
  });

  it('lets a link expire after an hour', async () => {
    const web = new WebClient(server);
    await web.register('slowpoke', 'old password 1');
    await web.get('/password/forgot');
    await web.post('/password/forgot', { login: 'slowpoke' });
    const mail = inbox
      .at(-1)!
      .replace(/=\r?\n/g, '')
      .replace(/=3D/g, '=');
    const path = new URL(/http:\/\/[^\s]+\/password\/reset\/[A-Za-z0-9_-]+/.exec(mail)![0]).pathname;
    server.clock.advance(60 * 60 * 1000 + 1);
    assert.equal((await web.get(path)).status, 400);
  });
});

describe('the password commands', () => {
  it('prints a reset link and sets a password from standard input', async () => {
    const server = await startFileTestServer();
    try {
      const web = new WebClient(server);
      await web.register('cliuser', 'old password 1');
      const printed = await runCli(
        '--database-url',
        server.databaseUrl,
        '--secret-key',
        server.services.serverKey,
        'user',
        'reset-link',
        'cliuser',
      );
      assert.equal(printed.code, 0, printed.err);
      const path = new URL(printed.out.trim()).pathname;
      assert.match(path, /^\/password\/reset\/[A-Za-z0-9_-]{40,}$/);
      assert.equal((await web.get(path)).status, 200);

      const set = spawnSync(
        process.execPath,
        [
          '--import',
          'tsx',
          'src/cli.ts',
          '--database-url',
          server.databaseUrl,
          'user',
          'password',
          'cliuser',
        ],
        {
          input: 'typed on stdin 3\n',
          encoding: 'utf8',
        },
      );
      assert.equal(set.status, 0, set.stderr);
      assert.match(set.stdout, /password of cliuser is set/);
      assert.equal((await new WebClient(server).signIn('cliuser', 'typed on stdin 3')).status, 303);
      assert.equal((await web.get('/profile')).status, 303, 'signed out everywhere');
      const empty = spawnSync(
        process.execPath,
        [
          '--import',
          'tsx',
          'src/cli.ts',
          '--database-url',
          server.databaseUrl,
          'user',
          'password',
          'cliuser',
        ],
        { input: '', encoding: 'utf8' },
      );
      assert.notEqual(empty.status, 0);
      assert.match(empty.stderr, /No password on standard input/);
    } finally {
      await server.close();
    }
  });
});

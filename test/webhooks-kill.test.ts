import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { SandboxDocument } from '../src/sandbox/types.js';
import { ATTEMPT_INTERRUPTED, ATTEMPT_UNDER_WAY } from '../src/store/webhooks.js';
import { PRIVATE_ANSWER } from '../src/domain/webhooks.js';
import { runCli } from './cli-helpers.js';
import {
  DIALECTS,
  postgresSchemaUrl,
  signedHeader,
  type TestCredentials,
  xmlRequest,
  xmlValue,
} from './helpers.js';
import { type Received, startReceiver, verifySignature } from './webhook-receiver.js';

/**
 * "A process killed during delivery leaves the attempt to be retried, never lost" (issue 16), with
 * a real kill: the server runs as its own process (`cardbazaar serve`, as `npm start` runs it),
 * its delivery reaches a receiver that never answers, the test SIGKILLs the process the moment the
 * delivery arrives, and starts it again on the same database.
 */

/** Short, so the claim of the killed process runs out within seconds (lease: 2 × timeout + 1 s). */
const TIMEOUT_MS = 3000;
const LEASE_MS = 2 * TIMEOUT_MS + 1000;
const SECRET_KEY = 'kill-test-secret-key-0123456789abcdef';

interface Serving {
  child: ChildProcess;
  document: SandboxDocument;
  exited: Promise<number | null>;
  output: () => string;
}

function serve(env: NodeJS.ProcessEnv): Promise<Serving> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/cli.ts', 'serve', '--print-credentials', 'json', '--no-exit-on-stdin-close'],
      { env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const timer = setTimeout(() => reject(new Error(`the server did not start:\n${err}`)), 90_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n')[0]!;
      if (out.includes('\n')) {
        clearTimeout(timer);
        resolve({ child, document: JSON.parse(line), exited, output: () => err });
      }
    });
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited with ${code}:\n${err}`));
    });
  });
}

function credentialsOf(document: SandboxDocument, username: string): TestCredentials & { idUser: number } {
  const user = document.users.find((u) => u.username === username);
  const app = user?.apps.dedicated;
  assert.ok(user && app, `no dedicated app for ${username}`);
  return { ...app, idUser: user.idUser };
}

async function until<T>(what: string, check: () => T | undefined | Promise<T | undefined>, ms = 60_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface Attempt {
  idDelivery: number;
  at: string;
  idEvent: number;
  type: string;
  status: number | null;
  response: string;
}

describe('webhooks: the server process killed during a delivery', () => {
  for (const dialect of DIALECTS) {
    it(`redelivers the same event after a restart, exactly once, the interrupted attempt on record (${dialect})`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'cardbazaar-kill-'));
      let databaseUrl = join(dir, 'db.sqlite');
      let drop: (() => Promise<void>) | undefined;
      if (dialect === 'postgres') ({ url: databaseUrl, drop } = await postgresSchemaUrl());
      const env = {
        ...process.env,
        DATABASE_URL: databaseUrl,
        SECRET_KEY,
        WEBHOOK_TIMEOUT: `${TIMEOUT_MS}ms`,
        LOG_LEVEL: 'warn',
        PORT: '0',
        HOST: '127.0.0.1',
      };
      const cli = (...args: string[]) =>
        runCli('--database-url', databaseUrl, '--secret-key', SECRET_KEY, ...args);
      let server: Serving | undefined;
      const arrivals: number[] = [];
      // The first delivery is never answered, and the server that sent it dies the moment it arrives.
      const hook = await startReceiver((_r, n) => {
        arrivals.push(Date.now());
        if (n === 1) {
          server!.child.kill('SIGKILL');
          return 'hang';
        }
        return 200;
      });
      try {
        server = await serve(env);
        const buyer = credentialsOf(server.document, 'demo-buyer');
        const seller = credentialsOf(server.document, 'demo-seller');
        const created = await cli(
          'webhook',
          'create',
          '--user',
          'demo-buyer',
          '--url',
          hook.url,
          '--kinds',
          'message.received',
        );
        assert.equal(created.code, 0, created.err);
        const endpoint = JSON.parse(created.out) as { idEndpoint: number; secret: string };
        const attemptsOnRecord = async (): Promise<Attempt[]> => {
          const listed = await cli('webhook', 'list', '--user', 'demo-buyer');
          assert.equal(listed.code, 0, listed.err);
          const all = JSON.parse(listed.out) as Array<{ idEndpoint: number; recentAttempts: Attempt[] }>;
          return all.find((e) => e.idEndpoint === endpoint.idEndpoint)!.recentAttempts;
        };

        // The event, produced through the API as a client would.
        const url = `${server.document.jsonBaseUrl}/account/messages/${buyer.idUser}`;
        const text = `Before the kill (${dialect})`;
        const sent = await fetch(url, {
          method: 'POST',
          headers: { authorization: signedHeader(seller, 'POST', url), 'content-type': 'text/xml' },
          body: xmlRequest(`<message>${text}</message>`),
        });
        assert.equal(sent.status, 200, await sent.clone().text());

        await until('the first delivery', () => hook.received[0]);
        assert.equal(await server.exited, null, 'killed, not exited');
        assert.equal(hook.received.length, 1);
        // Dead in the middle of the delivery: the attempt is on record, under way, nothing settled.
        const during = await attemptsOnRecord();
        assert.deepEqual(
          during.map((a) => [a.status, a.response]),
          [[null, ATTEMPT_UNDER_WAY]],
        );

        server = await serve(env);
        const second = await until('the delivery again', () => hook.received[1]);
        const first = hook.received[0]!;
        // Not before the dead process's claim ran out: the interrupted record keeps its claim's time
        // (the sandbox's marketplace clock, not moved here, is real time).
        const claimedAt = Date.parse(during[0]!.at);
        assert.ok(arrivals[0]! >= claimedAt - 50);
        assert.ok(arrivals[1]! >= claimedAt + LEASE_MS, `${arrivals[1]! - claimedAt} ms after the claim`);
        // The same event, the same delivery, signed with the endpoint's secret, checked independently.
        const check = (r: Received) =>
          verifySignature(
            endpoint.secret,
            r.headers['cardbazaar-signature'] as string,
            r.body,
            Math.floor(Date.now() / 1000),
          );
        assert.ok(check(first) && check(second));
        assert.equal(second.json.type, 'message.received');
        assert.equal(second.json.data.message.text, text);
        assert.equal(second.json.idUser, buyer.idUser);
        assert.deepEqual(second.json, first.json);
        assert.equal(second.headers['cardbazaar-event-id'], String(first.json.idEvent));
        assert.equal(second.headers['cardbazaar-delivery-id'], first.headers['cardbazaar-delivery-id']);

        // Accepted and settled: the record shows both attempts, the interrupted one kept.
        const settled = await until('the 200 on record', async () => {
          const attempts = await attemptsOnRecord();
          return attempts[0]?.status === 200 ? attempts : undefined;
        });
        assert.deepEqual(
          settled.map((a) => [a.status, a.response, a.idEvent, a.idDelivery]),
          [
            [200, PRIVATE_ANSWER, first.json.idEvent, Number(first.headers['cardbazaar-delivery-id'])],
            [null, ATTEMPT_INTERRUPTED, first.json.idEvent, Number(first.headers['cardbazaar-delivery-id'])],
          ],
        );
        // Exactly once after the restart: several delivery passes later, nothing more arrived.
        await new Promise((r) => setTimeout(r, 2000));
        assert.equal(hook.received.length, 2);

        // The feed (XML) knows the one event the webhook carried.
        const feedUrl = `${server.document.baseUrl}/events?since=0`;
        const feed = await fetch(feedUrl, {
          headers: { authorization: signedHeader(buyer, 'GET', feedUrl) },
        });
        const xml = await feed.text();
        assert.equal(feed.status, 200, xml);
        // (the demo data's messages raised events of their own before the endpoint existed)
        const ours = xml.split('<event>').filter((e) => e.includes(`<text>${text}</text>`));
        assert.equal(ours.length, 1, xml);
        assert.equal(xmlValue(ours[0]!, 'idEvent'), String(first.json.idEvent));
        assert.equal(xmlValue(ours[0]!, 'type'), 'message.received');
      } finally {
        server?.child.kill('SIGINT');
        if (server) await server.exited;
        await hook.close();
        await drop?.();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

/**
 * `node --import tsx bench/deliveries.ts`: the CPU the events of a 100-article checkout cost
 * inside cardbazaar, phase by phase, without a load generator: the checkout request (Fastify's
 * `inject`), the outbox pass that derives the public events and queues their deliveries
 * (`events.deliverPending`), and the webhook pass that signs, sends and records them
 * (`webhooks.deliverDue`), to a receiver in a child process so its CPU is not counted. With
 * `--endpoints none` no app has an endpoint: the same checkout, events derived for the feed only.
 *
 * Options: --rounds N (5), --checkouts N (10 per round), --warmup N (5), --endpoints all|none,
 * --database-url (a PostgreSQL URL; default a fresh SQLite file), --callgrind (instrumentation on
 * for one phase only), --profile <dir> (a V8 profile of one phase only); the phase is
 * --profile-phase deliver, the webhook passes (default), or derive, the outbox passes.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildApp } from '../src/app.js';
import { createApp } from '../src/auth/apps.js';
import { authorizationHeader } from '../src/auth/client.js';
import { testConfig } from '../src/config.js';
import { createEndpoint } from '../src/domain/webhooks.js';
import { createServices } from '../src/services.js';
import { BENCH_SECRET_KEY } from './prepare.js';
import { checkoutScenario } from './scenarios/checkout.js';

const { values: opts } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    checkouts: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '5' },
    endpoints: { type: 'string', default: 'all' },
    'database-url': { type: 'string' },
    callgrind: { type: 'boolean', default: false },
    profile: { type: 'string' },
    'profile-phase': { type: 'string', default: 'deliver' },
  },
});
const rounds = Number(opts.rounds);
const perRound = Number(opts.checkouts);
const warmup = Number(opts.warmup);
const HOST = '127.0.0.1:18080';

const callgrind = (what: 'on' | 'off') => {
  if (opts.callgrind) spawnSync('callgrind_control', ['-i', what, String(process.pid)], { stdio: 'ignore' });
};

/** A receiver answering 204 to everything, in its own process; resolves its URL and a counter. */
async function startReceiver() {
  const child = spawn(
    process.execPath,
    [
      '-e',
      `const s = require('node:http').createServer((q, r) => { q.resume(); q.on('end', () => { r.writeHead(204); r.end(); }); });
       let n = 0; s.on('connection', () => n++); process.on('SIGTERM', () => { console.error('receiver connections: ' + n); process.exit(0); });
       s.listen(0, '127.0.0.1', () => console.log(s.address().port));`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await new Promise<string>((resolve) =>
    child.stdout.once('data', (d) => resolve(String(d).trim())),
  );
  return { url: `http://127.0.0.1:${port}/hook`, stop: () => child.kill() };
}

const cpu = (f: () => Promise<unknown>) => async () => {
  const before = process.cpuUsage();
  await f();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
};

const dir = mkdtempSync(join(tmpdir(), 'cardbazaar-deliveries-'));
const receiver = await startReceiver();
try {
  const services = await createServices(
    testConfig({
      databaseUrl: opts['database-url'] ?? join(dir, 'bench.sqlite'),
      secretKey: BENCH_SECRET_KEY,
      logLevel: 'warn',
      limitsEnabled: false,
      limitsConcurrentGroups: [],
    }),
  );
  const state = await checkoutScenario.prepare(services);
  if (opts.endpoints === 'all') {
    const seller = await services.database.db
      .selectFrom('users')
      .select('idUser')
      .where('username', '=', 'bench-shop')
      .executeTakeFirstOrThrow();
    await createApp(services, { idUser: seller.idUser, kind: 'dedicated' });
    const apps = await services.database.db
      .selectFrom('apps')
      .select(['idApp', 'idUser'])
      .where('kind', '=', 'dedicated')
      .execute();
    for (const app of apps) {
      await createEndpoint(services, services.webhookSettings, app.idUser, {
        idApp: app.idApp,
        url: receiver.url,
      });
    }
  }
  const app = await buildApp(services);
  await app.ready();
  let next = 0;
  const checkout = async () => {
    const r = checkoutScenario.request(state, next++);
    const path = `/ws/v2.0${r.path}`;
    const res = await app.inject({
      method: r.method,
      url: path,
      headers: {
        host: HOST,
        authorization: authorizationHeader(r.method, `http://${HOST}${path}`, r.credentials),
      },
    });
    if (res.statusCode !== 200) throw new Error(`checkout: ${res.statusCode} ${res.body.slice(0, 300)}`);
  };
  const countDeliveries = async () =>
    Number(
      (
        await services.database.db
          .selectFrom('webhookAttempts')
          .select((eb) => eb.fn.countAll<number | string>().as('n'))
          .where('status', '=', 204)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const requests = cpu(async () => {
    for (let i = 0; i < perRound; i++) await checkout();
  });
  let measuring = false;
  const instrumented = (phase: string) => measuring && opts['profile-phase'] === phase;
  const derive = cpu(async () => {
    if (instrumented('derive')) callgrind('on');
    while ((await services.events.deliverPending()) > 0);
    if (instrumented('derive')) callgrind('off');
  });
  const deliver = cpu(async () => {
    if (instrumented('deliver')) callgrind('on');
    while ((await services.webhooks.deliverDue()) > 0);
    if (instrumented('deliver')) callgrind('off');
  });
  for (let i = 0; i < warmup; i++) await checkout();
  await derive();
  await deliver();
  measuring = true;
  const session = opts.profile ? new Session() : undefined;
  const results: Array<{ request: number; derive: number; deliver: number; deliveries: number }> = [];
  for (let r = 0; r < rounds; r++) {
    const before = await countDeliveries();
    const request = await requests();
    const profiled = async <T>(phase: string, f: () => Promise<T>): Promise<T> => {
      if (!session || opts['profile-phase'] !== phase) return f();
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
      const result = await f();
      const { profile } = await session.post('Profiler.stop');
      mkdirSync(opts.profile!, { recursive: true });
      writeFileSync(join(opts.profile!, `${phase}-${r}.cpuprofile`), JSON.stringify(profile));
      session.disconnect();
      return result;
    };
    const d = await profiled('derive', derive);
    const s = await profiled('deliver', deliver);
    const deliveries = (await countDeliveries()) - before;
    results.push({ request: request / perRound, derive: d / perRound, deliver: s, deliveries });
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const range = (xs: number[], digits = 2) =>
    `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;
  const perDelivery = results.filter((r) => r.deliveries > 0).map((r) => r.deliver / r.deliveries);
  console.log(
    `endpoints ${opts.endpoints}, ${services.database.dialect}, ${rounds} rounds of ${perRound} checkouts — CPU ms per checkout: ` +
      `request ${range(results.map((r) => r.request))}, outbox pass ${range(results.map((r) => r.derive))}, ` +
      `webhook pass ${range(results.map((r) => r.deliver / perRound))}; ` +
      `${results.map((r) => r.deliveries).join('/')} deliveries` +
      (perDelivery.length
        ? `, ${range(
            perDelivery.map((x) => x * 1000),
            0,
          )} µs CPU per delivery`
        : ''),
  );
  await app.close();
  await services.close();
} finally {
  receiver.stop();
  rmSync(dir, { recursive: true, force: true });
}

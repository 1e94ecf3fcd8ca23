/**
 * `node --import tsx bench/inject.ts --only "GET /account"`: the CPU one request of a scenario costs
 * inside cardbazaar, without sockets or a load generator (Fastify's `inject`, 50 requests in flight,
 * every request signed beforehand). On a machine shared with other work the requests per second of
 * `npm run bench` move with the neighbours; this moves far less, and under
 * `valgrind --tool=callgrind --instr-atstart=no` (with `--callgrind`) it counts the instructions of
 * the measured requests only, which is repeatable under any load. Compare two checkouts by running
 * it in each, interleaved.
 *
 * Options: --only <substring> (--exact: the whole name), --requests N (2000 per round), --rounds N (5), --warmup N (500),
 * --concurrency N (50 requests in flight, as the load generator's connections; sequential scenarios
 * such as the checkout send their own number one at a time after 3 of warm-up),
 * --callgrind (switches callgrind's instrumentation on for the measured requests only),
 * --callgrind-background (with --callgrind: for the outbox passes after each round too, the work a
 * write leaves, which `npm run bench` counts in the server's CPU per answer),
 * --profile <dir> (a V8 CPU profile of the measured requests only, one file per scenario, for
 * `node bench/profile.mjs`: preparing the database stays out of it),
 * --dialect sqlite|postgres (sqlite; postgres runs on a fresh schema of TEST_POSTGRES_URL, filled as
 * `npm run bench` fills it, and adds the CPU of the pool's PostgreSQL backends and the statements
 * sent per request), --queries (prints each statement's text and count per request, PostgreSQL only).
 *
 * A website page's scenario (its request has `page`) is sent to the site's path with its session
 * cookie instead of a signature.
 *
 * After each round the outbox its requests filled (the events a write raises, which a server
 * delivers in the background, on the same core) is delivered and its CPU printed apart, per request
 * of the round, as "background" (with its PostgreSQL backends' CPU on PostgreSQL).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { authorizationHeader } from '../src/auth/client.js';
import { testConfig } from '../src/config.js';
import { createServices } from '../src/services.js';
import { copySqliteIntoPostgres, postgresSchema, settlePostgres } from './copy.js';
import { BENCH_SECRET_KEY } from './prepare.js';
import type { Scenario } from './scenario.js';
import { scenarios } from './scenarios/index.js';

const { values: opts } = parseArgs({
  options: {
    only: { type: 'string' },
    exact: { type: 'boolean', default: false },
    requests: { type: 'string', default: '2000' },
    rounds: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '500' },
    concurrency: { type: 'string', default: '50' },
    callgrind: { type: 'boolean', default: false },
    'callgrind-background': { type: 'boolean', default: false },
    profile: { type: 'string' },
    dialect: { type: 'string', default: 'sqlite' },
    queries: { type: 'boolean', default: false },
  },
});
const dialect = opts.dialect;
if (dialect !== 'sqlite' && dialect !== 'postgres') throw new Error('--dialect is sqlite or postgres');
const postgresUrl = process.env.TEST_POSTGRES_URL;
if (dialect === 'postgres' && !postgresUrl) throw new Error('--dialect postgres needs TEST_POSTGRES_URL');
/** Every message pg sends that runs statements (a query, or an extended-protocol Sync). */
let sent = 0;
/** The harness's own statements (reading the backends' CPU) are not the server's. */
let counting = true;
const sentTexts = new Map<string, number>();
if (dialect === 'postgres') {
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    if (counting) sent++;
    if (counting && opts.queries) {
      const q = args[0] as string | { text: string; name?: string };
      const text = typeof q === 'string' ? q : `${q.name ? `[${q.name}] ` : ''}${q.text}`;
      sentTexts.set(text, (sentTexts.get(text) ?? 0) + 1);
    }
    return query.apply(this, args);
  } as typeof pg.Client.prototype.query;
}
const APPLICATION = `inject_${process.pid}`;

/**
 * User + system CPU (µs) of each of this run's PostgreSQL backends, by pid, read from /proc (same
 * machine only). A round's figure sums the backends alive at both ends: one the pool closed while
 * idle (sequential scenarios) would otherwise take its whole life's CPU out of the round.
 */
async function backendCpu(url: string): Promise<Map<number, number> | undefined> {
  const c = new pg.Client({ connectionString: url });
  counting = false;
  await c.connect();
  try {
    const { rows } = await c.query<{ pid: number }>(
      'select pid from pg_stat_activity where application_name = $1',
      [APPLICATION],
    );
    const cpu = new Map<number, number>();
    for (const { pid } of rows) {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      cpu.set(pid, ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / 100);
    }
    return cpu;
  } catch {
    return undefined;
  } finally {
    await c.end();
    counting = true;
  }
}

function backendDelta(before: Map<number, number>, after: Map<number, number>): number {
  let sum = 0;
  for (const [pid, cpu] of after) sum += cpu - (before.get(pid) ?? 0);
  return sum;
}
const perRoundOption = Number(opts.requests);
const rounds = Number(opts.rounds);
const warmupOption = Number(opts.warmup);
const concurrencyOption = Number(opts.concurrency);
const HOST = '127.0.0.1:18080';

const callgrind = (what: 'on' | 'off') => {
  if (opts.callgrind) spawnSync('callgrind_control', ['-i', what, String(process.pid)], { stdio: 'ignore' });
};

async function run(scenario: Scenario): Promise<void> {
  // One-shot writes (a checkout empties its cart) go one at a time, each request a new one, as
  // `npm run bench` sends them; the background work a round leaves is settled outside the measure.
  const perRound = scenario.sequential ? scenario.sequential.requests : perRoundOption;
  const warmup = scenario.sequential ? 3 : warmupOption;
  const concurrency = scenario.sequential ? 1 : concurrencyOption;
  const dir = mkdtempSync(join(tmpdir(), 'cardbazaar-inject-'));
  let drop: (() => Promise<void>) | undefined;
  try {
    let databaseUrl = join(dir, 'bench.sqlite');
    const prepared = scenario.database ? await scenario.database() : undefined;
    if (dialect === 'postgres') {
      const schema = await postgresSchema(postgresUrl!);
      databaseUrl = `${schema.url}&application_name=${APPLICATION}`;
      drop = schema.drop;
    } else if (prepared) {
      copyFileSync(prepared, databaseUrl);
    }
    const big = 1_000_000_000_000;
    const services = await createServices(
      testConfig({
        databaseUrl,
        secretKey: BENCH_SECRET_KEY,
        logLevel: 'warn',
        limitsEnabled: scenario.env?.LIMITS_ENABLED !== 'false',
        limitsPerMinute: big,
        limitsDailyPrivate: big,
        limitsDailyProfessional: big,
        limitsDailyPowerseller: big,
        limitsDailyMarketplace: big,
        limitsConcurrentGroups: [],
      }),
    );
    if (dialect === 'postgres' && prepared) await copySqliteIntoPostgres(prepared, databaseUrl);
    const state = await scenario.prepare(services);
    if (dialect === 'postgres') await settlePostgres(databaseUrl);
    const app = await buildApp(services);
    await app.ready();
    // As a running server does (`startServer`): checkpoints in a worker thread, out of the requests' way.
    services.database.checkpointInBackground?.();
    let i = 0;
    const signed = (n: number) =>
      Array.from({ length: n }, () => {
        const r = scenario.request(state, i++);
        // A website page: its own path, the session cookie instead of a signature.
        if (r.page) {
          return {
            method: r.method,
            url: r.path,
            payload: r.body,
            headers: { host: HOST, cookie: r.page.cookie } as Record<string, string>,
          };
        }
        const path = `/ws/v2.0${r.path}`;
        return {
          method: r.method,
          url: path,
          payload: r.body,
          headers: {
            host: HOST,
            authorization: authorizationHeader(r.method, `http://${HOST}${path}`, r.credentials),
            ...(r.body ? { 'content-type': 'application/xml' } : {}),
          },
        };
      });
    const send = async (batch: ReturnType<typeof signed>) => {
      let bytes = 0;
      let next = 0;
      // As many requests in flight as the load generator keeps (its connections): what is shared by
      // the requests of one event-loop turn (the nonce batch, the control rows) is shared here too.
      const worker = async () => {
        while (next < batch.length) {
          // As a stream: light-my-request otherwise decodes every body into a string, which a server
          // never does (1.3 ms of a 170 kB page of offers holding a few accented names, on Node 20).
          const res = await app.inject({ ...batch[next++]!, payloadAsStream: true });
          const chunks: Buffer[] = [];
          for await (const chunk of res.stream()) chunks.push(chunk as Buffer);
          if (res.statusCode < 200 || res.statusCode >= 300) {
            throw new Error(
              `${scenario.name}: ${res.statusCode} ${Buffer.concat(chunks).toString().slice(0, 300)}`,
            );
          }
          bytes = 0;
          for (const chunk of chunks) bytes += chunk.length;
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
      return bytes;
    };
    /** Delivers the outbox the requests filled, as a server does in the background on the same core. */
    const drain = async () => {
      while ((await services.events.deliverPending()) > 0);
    };
    const bytes = await send(signed(warmup));
    await drain();
    const background: number[] = [];
    const backendBackground: number[] = [];
    const perRequest: number[] = [];
    const system: number[] = [];
    const wall: number[] = [];
    const backend: number[] = [];
    const trips: number[] = [];
    sentTexts.clear();
    const session = opts.profile ? new Session() : undefined;
    if (session) {
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
    }
    for (let r = 0; r < rounds; r++) {
      const batch = signed(perRound);
      const backendBefore = dialect === 'postgres' ? await backendCpu(databaseUrl) : undefined;
      const sentBefore = sent;
      const started = performance.now();
      const before = process.cpuUsage();
      callgrind('on');
      await send(batch);
      callgrind('off');
      const used = process.cpuUsage(before);
      wall.push(((performance.now() - started) * 1000) / perRound);
      perRequest.push((used.user + used.system) / perRound);
      system.push(used.system / perRound);
      trips.push((sent - sentBefore) / perRound);
      const backendAfter = dialect === 'postgres' ? await backendCpu(databaseUrl) : undefined;
      if (scenario.afterRound) await scenario.afterRound(state);
      if (backendBefore !== undefined && backendAfter !== undefined) {
        backend.push(backendDelta(backendBefore, backendAfter) / perRound);
      }
      const bgBefore = process.cpuUsage();
      if (opts['callgrind-background']) callgrind('on');
      await drain();
      if (opts['callgrind-background']) callgrind('off');
      const bgUsed = process.cpuUsage(bgBefore);
      background.push((bgUsed.user + bgUsed.system) / perRound);
      const backendDrained = dialect === 'postgres' ? await backendCpu(databaseUrl) : undefined;
      if (backendAfter !== undefined && backendDrained !== undefined) {
        backendBackground.push(backendDelta(backendAfter, backendDrained) / perRound);
      }
    }
    if (session) {
      const { profile } = await session.post('Profiler.stop');
      mkdirSync(opts.profile!, { recursive: true });
      const file = join(opts.profile!, `${scenario.name.replace(/[^A-Za-z0-9]+/g, '-')}.cpuprofile`);
      writeFileSync(file, JSON.stringify(profile));
      session.disconnect();
    }
    const summary = (xs: number[], digits = 1) => {
      xs.sort((a, b) => a - b);
      const f = (x: number) => x.toFixed(digits);
      return `${f(xs[Math.floor(xs.length / 2)]!)} (${f(xs[0]!)}–${f(xs.at(-1)!)})`;
    };
    console.log(
      `${scenario.name}: ${summary(perRequest)} µs CPU per request (system ${summary(system)}) ` +
        `over ${rounds} rounds of ${perRound}, ${bytes} bytes; wall ${summary(wall)} µs per request, ${dialect}` +
        (dialect === 'postgres'
          ? `; ${summary(trips, 2)} statements sent per request` +
            (backend.length > 0 ? `, PostgreSQL backends ${summary(backend)} µs CPU per request` : '')
          : '') +
        `; background (the outbox the round filled) ${summary(background)} µs` +
        (backendBackground.length > 0 ? `, its PostgreSQL backends ${summary(backendBackground)} µs` : ''),
    );
    if (opts.queries) {
      const total = rounds * perRound;
      // Batched writes (nonces, the request log) vary in length: their many texts are left out.
      for (const [text, n] of [...sentTexts]
        .sort((a, b) => b[1] - a[1])
        .filter(([, n]) => n / total >= 0.001)) {
        console.log(`  ${(n / total).toFixed(3)} × ${text.replace(/\s+/g, ' ').slice(0, 200)}`);
      }
    }
    await app.close();
    await services.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
    if (drop) await drop();
  }
}

for (const scenario of scenarios) {
  if (opts.only && !(opts.exact ? scenario.name === opts.only : scenario.name.includes(opts.only))) continue;
  await run(scenario as Scenario);
}

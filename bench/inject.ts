/**
 * `node --import tsx bench/inject.ts --only "GET /account"`: the CPU one request of a scenario costs
 * inside cardbazaar, without sockets or a load generator (Fastify's `inject`, 50 requests in flight,
 * every request signed beforehand). On a machine shared with other work the requests per second of
 * `npm run bench` move with the neighbours; this moves far less, and under
 * `valgrind --tool=callgrind --instr-atstart=no` (with `--callgrind`) it counts the instructions of
 * the measured requests only, which is repeatable under any load. Compare two checkouts by running
 * it in each, interleaved.
 *
 * Options: --only <substring>, --requests N (2000 per round), --rounds N (5), --warmup N (500),
 * --concurrency N (50 requests in flight, as the load generator's connections),
 * --callgrind (switches callgrind's instrumentation on for the measured requests only),
 * --profile <dir> (a V8 CPU profile of the measured requests only, one file per scenario, for
 * `node bench/profile.mjs`: preparing the database stays out of it), --dialect sqlite|postgres
 * (sqlite; postgres prepares a fresh schema of TEST_POSTGRES_URL, as `npm run bench` does).
 *
 * After each round the outbox its requests filled (the events a write raises, delivered in the
 * background by a server, on the same core) is delivered and its CPU printed apart, per request of
 * the round: "background". On PostgreSQL the CPU of the schema's database backends (read from
 * /proc, so the server must run on this machine) is printed beside node's, foreground and
 * background. Callgrind counts the foreground (`--callgrind-background`: the background instead);
 * a profile covers both.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
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
    requests: { type: 'string', default: '2000' },
    rounds: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '500' },
    concurrency: { type: 'string', default: '50' },
    callgrind: { type: 'boolean', default: false },
    profile: { type: 'string' },
    dialect: { type: 'string', default: 'sqlite' },
    'callgrind-background': { type: 'boolean', default: false },
  },
});
const perRound = Number(opts.requests);
const rounds = Number(opts.rounds);
const warmup = Number(opts.warmup);
const concurrency = Number(opts.concurrency);
const HOST = '127.0.0.1:18080';
const dialect = opts.dialect;
if (dialect !== 'sqlite' && dialect !== 'postgres') throw new Error('--dialect is sqlite or postgres');
const postgresUrl = process.env.TEST_POSTGRES_URL;
if (dialect === 'postgres' && !postgresUrl) throw new Error('--dialect postgres needs TEST_POSTGRES_URL');

/**
 * CPU µs the PostgreSQL backends of this application name used since the last call (their /proc
 * stat; a backend the pool opened since counts whole, one it closed counts what it had last time).
 */
const seen = new Map<number, number>();
async function backendCpu(
  services: Awaited<ReturnType<typeof createServices>>,
  name: string,
): Promise<number> {
  const { rows } = await sql<{
    pid: number;
  }>`select pid from pg_stat_activity where application_name = ${name}`.execute(services.database.db);
  let used = 0;
  for (const { pid } of rows) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (clock ticks of 10 ms)
      used += ticks - (seen.get(pid) ?? 0);
      seen.set(pid, ticks);
    } catch {
      // a backend that ended since
    }
  }
  return used * 10_000;
}

const callgrind = (what: 'on' | 'off') => {
  if (opts.callgrind) spawnSync('callgrind_control', ['-i', what, String(process.pid)], { stdio: 'ignore' });
};

async function run(scenario: Scenario): Promise<void> {
  if (scenario.sequential) return;
  const dir = mkdtempSync(join(tmpdir(), 'cardbazaar-inject-'));
  let drop: (() => Promise<void>) | undefined;
  try {
    let databaseUrl = join(dir, 'bench.sqlite');
    const prepared = scenario.database ? await scenario.database() : undefined;
    let appName: string | undefined;
    if (dialect === 'postgres') {
      const schema = await postgresSchema(postgresUrl!);
      databaseUrl = schema.url;
      drop = schema.drop;
      appName = new URL(schema.url).searchParams.get('application_name')!;
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
    const backend = async () => (appName ? backendCpu(services, appName) : 0);
    /** Delivers the outbox the requests filled, as a server does in the background. */
    const drain = async () => {
      while ((await services.events.deliverPending()) > 0);
    };
    if (scenario.request(state, -1).page) return;
    const app = await buildApp(services);
    await app.ready();
    let i = 0;
    const signed = (n: number) =>
      Array.from({ length: n }, () => {
        const r = scenario.request(state, i++);
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
          const res = await app.inject(batch[next++]!);
          if (res.statusCode < 200 || res.statusCode >= 300) {
            throw new Error(`${scenario.name}: ${res.statusCode} ${res.body.slice(0, 300)}`);
          }
          bytes = res.rawPayload.length;
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
      return bytes;
    };
    const bytes = await send(signed(warmup));
    await drain();
    const perRequest: number[] = [];
    const db: number[] = [];
    const background: number[] = [];
    const dbBackground: number[] = [];
    const session = opts.profile ? new Session() : undefined;
    if (session) {
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
    }
    for (let r = 0; r < rounds; r++) {
      const batch = signed(perRound);
      await backend();
      const before = process.cpuUsage();
      if (!opts['callgrind-background']) callgrind('on');
      await send(batch);
      callgrind('off');
      const used = process.cpuUsage(before);
      perRequest.push((used.user + used.system) / perRound);
      db.push((await backend()) / perRound);
      const bgBefore = process.cpuUsage();
      if (opts['callgrind-background']) callgrind('on');
      await drain();
      callgrind('off');
      const bgUsed = process.cpuUsage(bgBefore);
      background.push((bgUsed.user + bgUsed.system) / perRound);
      dbBackground.push((await backend()) / perRound);
    }
    if (session) {
      const { profile } = await session.post('Profiler.stop');
      mkdirSync(opts.profile!, { recursive: true });
      const file = join(opts.profile!, `${scenario.name.replace(/[^A-Za-z0-9]+/g, '-')}.cpuprofile`);
      writeFileSync(file, JSON.stringify(profile));
      session.disconnect();
    }
    const summary = (xs: number[]) => {
      xs.sort((a, b) => a - b);
      return `${xs[Math.floor(rounds / 2)]!.toFixed(1)} (${xs[0]!.toFixed(1)}–${xs.at(-1)!.toFixed(1)})`;
    };
    console.log(
      `${scenario.name}: ${summary(perRequest)} µs CPU per request ` +
        `(over ${rounds} rounds of ${perRound}), ${bytes} bytes, ${dialect}; background ${summary(background)} µs` +
        (appName ? `; PostgreSQL backends ${summary(db)} µs, background ${summary(dbBackground)} µs` : ''),
    );
    await app.close();
    await services.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await drop?.().catch(() => {});
  }
}

for (const scenario of scenarios) {
  if (opts.only && !scenario.name.includes(opts.only)) continue;
  await run(scenario as Scenario);
}

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
 * `node bench/profile.mjs`: preparing the database stays out of it),
 * --dialect sqlite|postgres (postgres: a fresh schema of TEST_POSTGRES_URL, dropped afterwards).
 *
 * A sequential scenario (a one-shot write such as the checkout) sends its requests one at a time,
 * each to a new `i`, with --warmup 10 and --requests 20 unless given: `prepare` fills only so many.
 * Besides the CPU it prints the wall time per request, which on PostgreSQL includes the server's.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { authorizationHeader } from '../src/auth/client.js';
import { testConfig } from '../src/config.js';
import { createServices } from '../src/services.js';
import { copySqliteIntoPostgres, settlePostgres } from './copy.js';
import { BENCH_SECRET_KEY } from './prepare.js';
import type { Scenario } from './scenario.js';
import { scenarios } from './scenarios/index.js';

const { values: opts } = parseArgs({
  options: {
    only: { type: 'string' },
    requests: { type: 'string' },
    rounds: { type: 'string', default: '5' },
    warmup: { type: 'string' },
    concurrency: { type: 'string', default: '50' },
    callgrind: { type: 'boolean', default: false },
    profile: { type: 'string' },
    dialect: { type: 'string', default: 'sqlite' },
  },
});
const rounds = Number(opts.rounds);
const dialect = opts.dialect;
if (dialect !== 'sqlite' && dialect !== 'postgres') throw new Error('--dialect is sqlite or postgres');
const postgresUrl = process.env.TEST_POSTGRES_URL;
if (dialect === 'postgres' && !postgresUrl) throw new Error('--dialect postgres needs TEST_POSTGRES_URL');
const HOST = '127.0.0.1:18080';

const callgrind = (what: 'on' | 'off') => {
  if (opts.callgrind) spawnSync('callgrind_control', ['-i', what, String(process.pid)], { stdio: 'ignore' });
};

/** A fresh schema of TEST_POSTGRES_URL (as `npm run bench -- --dialect postgres` makes one). */
async function postgresSchema(): Promise<{ url: string; drop: () => Promise<void> }> {
  const schema = `inject_${randomBytes(5).toString('hex')}`;
  const run = async (text: string) => {
    const c = new pg.Client({ connectionString: postgresUrl });
    await c.connect();
    try {
      await c.query(text);
    } finally {
      await c.end();
    }
  };
  await run(`create schema "${schema}"`);
  const url = `${postgresUrl}${postgresUrl!.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  return { url, drop: () => run(`drop schema "${schema}" cascade`) };
}

async function run(scenario: Scenario): Promise<void> {
  const sequential = scenario.sequential !== undefined;
  const perRound = Number(opts.requests ?? (sequential ? scenario.sequential!.requests : 2000));
  const warmup = Number(opts.warmup ?? (sequential ? 10 : 500));
  const concurrency = sequential ? 1 : Number(opts.concurrency);
  const dir = mkdtempSync(join(tmpdir(), 'cardbazaar-inject-'));
  let drop: (() => Promise<void>) | undefined;
  try {
    let databaseUrl = join(dir, 'bench.sqlite');
    const prepared = scenario.database ? await scenario.database() : undefined;
    if (dialect === 'postgres') {
      const schema = await postgresSchema();
      databaseUrl = schema.url;
      drop = schema.drop;
    } else if (prepared) copyFileSync(prepared, databaseUrl);
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
    const perRequest: number[] = [];
    const wallPerRequest: number[] = [];
    const session = opts.profile ? new Session() : undefined;
    if (session) {
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
    }
    for (let r = 0; r < rounds; r++) {
      const batch = signed(perRound);
      const before = process.cpuUsage();
      const started = performance.now();
      callgrind('on');
      await send(batch);
      callgrind('off');
      wallPerRequest.push((performance.now() - started) / perRound);
      const used = process.cpuUsage(before);
      perRequest.push((used.user + used.system) / perRound);
    }
    if (session) {
      const { profile } = await session.post('Profiler.stop');
      mkdirSync(opts.profile!, { recursive: true });
      const file = join(opts.profile!, `${scenario.name.replace(/[^A-Za-z0-9]+/g, '-')}.cpuprofile`);
      writeFileSync(file, JSON.stringify(profile));
      session.disconnect();
    }
    perRequest.sort((a, b) => a - b);
    wallPerRequest.sort((a, b) => a - b);
    console.log(
      `${scenario.name}: ${perRequest[Math.floor(rounds / 2)]!.toFixed(1)} µs CPU per request ` +
        `(${perRequest[0]!.toFixed(1)}–${perRequest.at(-1)!.toFixed(1)} over ${rounds} rounds of ${perRound}), ${bytes} bytes, ${dialect}` +
        (sequential
          ? `; sequential, ${wallPerRequest[Math.floor(rounds / 2)]!.toFixed(2)} ms wall each ` +
            `(${wallPerRequest[0]!.toFixed(2)}–${wallPerRequest.at(-1)!.toFixed(2)})`
          : ''),
    );
    await app.close();
    await services.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await drop?.();
  }
}

for (const scenario of scenarios) {
  if (opts.only && !scenario.name.includes(opts.only)) continue;
  await run(scenario as Scenario);
}

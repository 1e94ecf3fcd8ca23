/**
 * `npm run bench`: each scenario loads cardbazaar and, in the same run, a bare node:http server
 * answering the same bytes, in alternating rounds; it prints requests per second and the ratio per
 * round, then the median ratio with its range, and the server's peak RSS. Both servers are pinned
 * to core 1 and this load generator to core 0 (two-core machines drift by up to 25% between
 * sequential runs, so only same-run, interleaved ratios mean anything).
 *
 * The bench must not flatter: every request is signed before its round (wrk replays a file,
 * autocannon an array), so the generator spends nothing on OAuth while measuring; and the run starts
 * by measuring what the generator and a bare server reach on fixed bytes, and warns on every round
 * whose baseline stayed well below that capacity (another process took the core, or the generator
 * limited the baseline: either way that round's ratio is flattering).
 *
 * Options: --only <substring> (scenarios whose name contains it; --exact: the whole name), --rounds N (5), --seconds S (4),
 * --connections C (50), --warmup S (2), --dialect sqlite|postgres (sqlite; postgres runs on a fresh
 * schema of TEST_POSTGRES_URL), --generator wrk|autocannon (wrk where installed). A scenario may
 * start its server with extra arguments (`serverArgs`: the living market's `--market … --speed 60`)
 * and name work the server does beside the requests (`background`), whose progress is printed
 * before and after the rounds. BENCH_PORT_BASE
 * moves the ports (default 18080 and up); BENCH_SERVER_NODE_ARGS adds node flags to cardbazaar's
 * process only (`--cpu-prof` to profile it). Sizes: BENCH_ORDERS_SMALL, BENCH_ORDERS_LARGE,
 * BENCH_CATALOG_SMALL_SCALE, BENCH_CATALOG_LARGE_SCALE, BENCH_STOCK_ARTICLES.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { authorizationHeader } from '../src/auth/client.js';
import { testConfig } from '../src/config.js';
import { createServices } from '../src/services.js';
import { copySqliteIntoPostgres, postgresSchema, settlePostgres } from './copy.js';
import { BENCH_SECRET_KEY } from './prepare.js';
import type { BenchRequest, Scenario } from './scenario.js';
import { scenarios } from './scenarios/index.js';

const { values: opts } = parseArgs({
  options: {
    only: { type: 'string' },
    exact: { type: 'boolean', default: false },
    rounds: { type: 'string', default: '5' },
    seconds: { type: 'string', default: '4' },
    connections: { type: 'string', default: '50' },
    warmup: { type: 'string', default: '2' },
    dialect: { type: 'string', default: 'sqlite' },
    generator: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

if (opts.help) {
  console.log(`npm run bench [-- options]: each scenario against a bare node:http server sending the same bytes.

The headline of every scenario is its CPU ratio: node:http's server CPU per answer over cardbazaar's,
both measured in the same rounds from /proc (user + system). It moves little with the load of other
processes; requests per second and their ratio are printed too, and move with the neighbours.
Before each scenario the generator's capacity (bare node:http on a small fixed answer) is measured
again; rounds whose baseline falls below 0.75 of it are flagged ⚠.

Options:
  --only <text>            scenarios whose name contains <text>
  --exact                  with --only: the scenario whose whole name is <text>
  --rounds N               rounds per scenario (5)
  --seconds S              seconds per round (4)
  --warmup S               warm-up seconds (2)
  --connections C          connections of the load generator (50)
  --dialect sqlite|postgres  postgres: a fresh schema of TEST_POSTGRES_URL per scenario
  --generator wrk|autocannon  wrk where installed
  -h, --help               this text

Environment: BENCH_PORT_BASE (18080), BENCH_SERVER_NODE_ARGS (node flags for cardbazaar only, e.g.
--cpu-prof), BENCH_ORDERS_SMALL, BENCH_ORDERS_LARGE, BENCH_CATALOG_SMALL_SCALE, BENCH_CATALOG_LARGE_SCALE,
BENCH_STOCK_ARTICLES (sizes), TEST_POSTGRES_URL (for --dialect postgres).
The whole table of docs/performance.md's "Measured" section: npm run bench:all (SQLite, then PostgreSQL).

Every round prints the latency the generator saw (mean, median, p99) and each scenario a LATENCY line.
The living market (issue 34): --only "beside a market" runs GET /account and the product offers API page
on one database with 1,000 traders (scenarios/market/crowd.json, prepared once into bench/.cache), each
idle and with the server started as serve --market crowd.json --speed 60; the market's action count is
printed before and after the rounds (⚠ when it stood still). Compare each pair's LATENCY lines (bar:
within 15 %); the market's own CPU is in the same process, so its CPU per answer includes market work.

Scenarios (--only matches part of a name):
${scenarios.map((s) => `  ${s.name} — ${s.description}`).join('\n')}`);
  process.exit(0);
}

const hasTaskset = spawnSync('taskset', ['-c', '0', 'true']).status === 0;
const pin = (core: number, cmd: string[]) => (hasTaskset ? ['taskset', '-c', String(core), ...cmd] : cmd);

if (hasTaskset && !process.env.BENCH_PINNED) {
  // Re-run this harness on core 0, leaving core 1 to the servers under test.
  const child = spawnSync(
    pin(0, [process.execPath])[0]!,
    [...pin(0, [process.execPath]).slice(1), ...process.execArgv, ...process.argv.slice(1)],
    {
      stdio: 'inherit',
      env: { ...process.env, BENCH_PINNED: '1' },
    },
  );
  process.exit(child.status ?? 1);
}

const serverNodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
const rounds = Number(opts.rounds);
const seconds = Number(opts.seconds);
const connections = Number(opts.connections);
const warmup = Number(opts.warmup);
const dialect = opts.dialect;
if (dialect !== 'sqlite' && dialect !== 'postgres') throw new Error('--dialect is sqlite or postgres');
const postgresUrl = process.env.TEST_POSTGRES_URL;
if (dialect === 'postgres' && !postgresUrl) {
  throw new Error(
    '--dialect postgres needs TEST_POSTGRES_URL (e.g. postgres://postgres@127.0.0.1:5432/test)',
  );
}
const hasWrk = spawnSync('wrk', ['--version']).error === undefined;
const generator = opts.generator ?? (hasWrk ? 'wrk' : 'autocannon');
if (generator !== 'wrk' && generator !== 'autocannon') throw new Error('--generator is wrk or autocannon');
if (generator === 'wrk' && !hasWrk)
  throw new Error('--generator wrk: wrk is not installed (apt-get install wrk)');

/** A round whose baseline reached less than this share of the capacity measured is flagged. */
const CAPACITY_WARNING = 0.75;
/** Above this answer size the baseline's own cost grows with the bytes, so the run-wide capacity (small answer) does not apply. */
const SMALL_ANSWER = 16 * 1024;

function start(
  cmd: string[],
  env: NodeJS.ProcessEnv,
  ready: (line: string) => boolean,
): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd[0]!, cmd.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    let out = '';
    const onData = (d: Buffer) => {
      out += d.toString();
      if (out.split('\n').some(ready)) resolve(child);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.on('message', (m) => {
      if (m === 'ready') resolve(child);
    });
    child.on('exit', (code) => reject(new Error(`${cmd.join(' ')} exited with ${code}:\n${out}`)));
  });
}

/** Where a request goes and the header that lets it in: an OAuth signature, or a page's cookie. */
function addressed(port: number, r: BenchRequest): { path: string; url: string; header: [string, string] } {
  const path = r.page || r.control ? r.path : `/ws/v2.0${r.path}`;
  const url = `http://127.0.0.1:${port}${path}`;
  return {
    path,
    url,
    header: r.page
      ? ['cookie', r.page.cookie]
      : r.control
        ? ['authorization', `Bearer ${r.control.token}`]
        : ['authorization', authorizationHeader(r.method, url, r.credentials)],
  };
}

/** Whether an answer has the status the scenario expects (one of them). */
const expected = (scenario: Scenario, status: number) =>
  typeof scenario.expectStatus === 'number'
    ? status === scenario.expectStatus
    : scenario.expectStatus.includes(status);

interface LoadResult {
  rps: number;
  /** Answers received in the round. */
  requests: number;
  /** CPU time the server process spent in the round (user + system), in µs per answer. */
  cpuPerRequest?: number;
  non2xx: number;
  errors: number;
  /** Status → answers (cardbazaar's rounds). */
  statuses: Record<string, number>;
  /** Latency of an answer as the generator saw it, in ms: mean, median and 99th percentile. */
  latency?: { mean: number; p50: number; p99: number };
  /** More requests were sent than were signed: some nonces went twice, the round is void. */
  wrapped: boolean;
}

/** Where requests come from: request `i` of the scenario, signed for `port`. */
interface Source {
  next(port: number): { r: BenchRequest; path: string; header: [string, string] };
}

/**
 * The scenario's requests in one sequence over the whole run (a write scenario's later rounds send
 * new bodies, not the first round's again), each signed with a fresh nonce.
 */
function sourceOf(scenario: Scenario, state: unknown): Source {
  let i = 0;
  return {
    next(port) {
      const r = scenario.request(state, i++);
      return { r, ...addressed(port, r) };
    },
  };
}

/**
 * Loads one server for `duration` seconds with `count` requests signed beforehand. cardbazaar
 * refuses a replayed nonce, so it needs a request for each one sent (the result says when the
 * generator ran out and wrapped around); the bare baseline does not check, and cycles through a
 * short list.
 */
async function load(
  port: number,
  source: Source,
  duration: number,
  count: number,
  tallyStatuses: boolean,
): Promise<LoadResult> {
  const signed = Array.from({ length: count }, () => source.next(port));
  if (generator === 'wrk') {
    const file = join(workDir, `requests-${port}.txt`);
    writeFileSync(
      file,
      // wrk.lua sends the third column as Authorization, or as Cookie when it starts with "Cookie: ".
      `${signed.map(({ r, path, header }) => `${r.method}\t${path}\t${header[0] === 'cookie' ? `Cookie: ${header[1]}` : header[1]}\t${r.body ?? ''}`).join('\n')}\n`,
    );
    signed.length = 0;
    const out = spawnSync(
      'wrk',
      [
        '-t1',
        `-c${connections}`,
        // wrk's default of 2 s would count a slow scenario's queued requests (writes of 100
        // articles queue behind each other on a busy machine) as socket errors.
        '--timeout',
        '10s',
        '--latency',
        `-d${duration}s`,
        '-s',
        'bench/wrk.lua',
        `http://127.0.0.1:${port}`,
        '--',
        file,
        ...(tallyStatuses ? ['statuses'] : []),
      ],
      { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 },
    ).stdout;
    const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0);
    const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
    const errors =
      /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/
        .exec(out)
        ?.slice(1)
        .reduce((a, b) => a + Number(b), 0) ?? 0;
    const sent = /bench: sent (\d+) of (\d+) statuses (\S*)/.exec(out);
    const statuses: Record<string, number> = {};
    for (const pair of (sent?.[3] ?? '').split(',').filter(Boolean)) {
      const [status, n] = pair.split('=');
      statuses[status!] = Number(n);
    }
    const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
    const ms = (text: string | undefined) => {
      const m = /^([\d.]+)(us|ms|s|m)$/.exec(text ?? '');
      if (!m) return NaN;
      return Number(m[1]) * { us: 0.001, ms: 1, s: 1000, m: 60_000 }[m[2] as 'us' | 'ms' | 's' | 'm'];
    };
    const latency = {
      mean: ms(/Latency\s+(\S+)/.exec(out)?.[1]),
      p50: ms(/^\s+50%\s+(\S+)/m.exec(out)?.[1]),
      p99: ms(/^\s+99%\s+(\S+)/m.exec(out)?.[1]),
    };
    return {
      rps,
      requests,
      non2xx,
      errors,
      statuses,
      latency: Number.isNaN(latency.mean) ? undefined : latency,
      wrapped: Number(sent?.[1] ?? 0) > Number(sent?.[2] ?? 0),
    };
  }
  const requests = signed.map(({ r, path, header }) => ({
    method: r.method,
    path,
    headers: {
      [header[0]]: header[1],
      ...(r.body ? { 'content-type': r.contentType ?? 'application/xml' } : {}),
    },
    body: r.body,
  }));
  let k = 0;
  const statuses: Record<string, number> = {};
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: `http://127.0.0.1:${port}`,
        connections,
        duration,
        requests: [{ setupRequest: () => requests[k++ % requests.length]! }],
      },
      (err, res) => (err ? reject(err) : resolve(res)),
    );
    if (tallyStatuses) {
      instance.on('response', (_client, statusCode) => {
        statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
      });
    }
  });
  return {
    rps: result.requests.average,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    statuses,
    latency: { mean: result.latency.average, p50: result.latency.p50, p99: result.latency.p99 },
    wrapped: k > requests.length,
  };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const range = (xs: number[], digits: number) =>
  `${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}`;
const thousands = (n: number) => Math.round(n).toLocaleString('en');

/** The peak resident memory of a process so far (Linux), in MB. */
function peakRssMb(pid: number | undefined): number | undefined {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) / 1024;
  } catch {
    return undefined;
  }
}

let workDir = '';

const TICKS_PER_SECOND = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/** CPU time a process has used so far (user + system, Linux), in µs. */
function cpuMicros(pid: number | undefined): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/**
 * Runs a load and adds the server's CPU time per answer: on a machine shared with other work the
 * requests per second move with whatever else runs, while the CPU each answer costs moves far less,
 * so bare-CPU / cardbazaar-CPU estimates the ratio an idle core would give.
 */
async function withCpu(pid: number | undefined, run: () => Promise<LoadResult>): Promise<LoadResult> {
  const before = cpuMicros(pid);
  const result = await run();
  const after = cpuMicros(pid);
  if (before !== undefined && after !== undefined && result.requests > 0) {
    result.cpuPerRequest = (after - before) / result.requests;
  }
  return result;
}

/**
 * What the generator and a bare node:http server reach on a small fixed answer, measured once at
 * the start: the ceiling of any baseline in this run. Rounds whose baseline stays well below it
 * were slowed by something else, and their ratios flatter cardbazaar.
 */
async function measureCapacity(): Promise<number> {
  workDir = mkdtempSync(join(tmpdir(), 'cardbazaar-bench-'));
  const port = Number(process.env.BENCH_PORT_BASE ?? 18080) - 1;
  const bodyFile = join(workDir, 'capacity-body.xml');
  writeFileSync(
    bodyFile,
    `<?xml version="1.0" encoding="UTF-8"?>\n<response>${'<a>x</a>'.repeat(100)}</response>`,
  );
  const child = await start(
    pin(1, [process.execPath, 'bench/baseline.mjs', String(port), 'application/xml', bodyFile]),
    process.env,
    () => false,
  );
  try {
    const credentials = {
      appToken: 'a'.repeat(16),
      appSecret: 'b'.repeat(32),
      accessToken: 'c'.repeat(32),
      accessTokenSecret: 'd'.repeat(32),
    };
    const source: Source = {
      next: (p) => {
        const r: BenchRequest = { method: 'GET', path: '/account', credentials };
        return { r, ...addressed(p, r) };
      },
    };
    await load(port, source, warmup, 2000, false);
    const measured: number[] = [];
    for (let k = 0; k < 2; k++) measured.push((await load(port, source, seconds, 2000, false)).rps);
    return Math.max(...measured);
  } finally {
    child.kill('SIGTERM');
    rmSync(workDir, { recursive: true, force: true });
  }
}

async function runScenario(scenario: Scenario, index: number, capacity: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'cardbazaar-bench-'));
  workDir = dir;
  let databaseUrl = join(dir, 'bench.sqlite');
  let drop: (() => Promise<void>) | undefined;
  const children: ChildProcess[] = [];
  try {
    const prepareStarted = performance.now();
    const prepared = scenario.database ? await scenario.database() : undefined;
    if (dialect === 'postgres') {
      const schema = await postgresSchema(postgresUrl!);
      databaseUrl = schema.url;
      drop = schema.drop;
    } else if (prepared) {
      copyFileSync(prepared, databaseUrl);
    }
    const services = await createServices(
      testConfig({ databaseUrl, secretKey: BENCH_SECRET_KEY, logLevel: 'warn' }),
    );
    let state: unknown;
    try {
      if (dialect === 'postgres' && prepared) await copySqliteIntoPostgres(prepared, databaseUrl);
      state = await scenario.prepare(services);
    } finally {
      await services.close();
    }
    if (dialect === 'postgres') await settlePostgres(databaseUrl);
    const prepareSeconds = (performance.now() - prepareStarted) / 1000;

    const port = Number(process.env.BENCH_PORT_BASE ?? 18080) + index * 2;
    const env = {
      ...process.env,
      DATABASE_URL: databaseUrl,
      SECRET_KEY: BENCH_SECRET_KEY,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DEMO_DATA: 'false',
      // The request limits stay on, so their cost is in every figure, but out of the way: one token
      // from one address makes far more than 600 requests a minute and a quota a day, over 50
      // connections at once.
      LIMITS_ENABLED: 'true',
      LIMITS_PER_MINUTE: '1000000000000',
      LIMITS_DAILY_PRIVATE: '1000000000000',
      LIMITS_DAILY_PROFESSIONAL: '1000000000000',
      LIMITS_DAILY_POWERSELLER: '1000000000000',
      LIMITS_DAILY_MARKETPLACE: '1000000000000',
      LIMITS_CONCURRENT_GROUPS: '',
      ...scenario.env,
    };
    const background = scenario.background;
    const before = await background?.progress(databaseUrl);
    const ours = await start(
      pin(1, [
        process.execPath,
        ...serverNodeArgs,
        'bin/cardbazaar.js',
        'serve',
        ...(scenario.serverArgs ?? []),
      ]),
      env,
      (l) => l.includes('listening on'),
    );
    children.push(ours);
    if (background && before) {
      // Measured only once the work beside the requests is under way (a market sets its traders
      // up first), or the first rounds would measure an idle server.
      const waitStarted = performance.now();
      for (;;) {
        const now = await background.progress(databaseUrl);
        if (now.count > before.count) {
          console.log(
            `   (beside the requests: ${now.note}; it started moving ${((performance.now() - waitStarted) / 1000).toFixed(1)} s after the server)`,
          );
          break;
        }
        if (performance.now() - waitStarted > 300_000)
          throw new Error(
            `${scenario.name}: the work beside the requests did not start within 300 s (${now.note})`,
          );
        await new Promise((r) => setTimeout(r, 500));
      }
    }

    // One real request: it must be the expected answer, and its bytes are what the baseline sends.
    const sample = scenario.request(state, -1);
    const { url, header } = addressed(port, sample);
    const res = await fetch(url, {
      method: sample.method,
      headers: {
        [header[0]]: header[1],
        ...(sample.body ? { 'content-type': sample.contentType ?? 'application/xml' } : {}),
      },
      body: sample.body,
      redirect: 'manual',
    });
    const body = Buffer.from(await res.arrayBuffer());
    if (!expected(scenario, res.status)) {
      throw new Error(
        `${scenario.name}: expected ${scenario.expectStatus}, got ${res.status}: ${body.toString().slice(0, 300)}`,
      );
    }
    const contentType = res.headers.get('content-type') ?? 'application/xml';
    // Through a file: a large answer (100 stock articles) is more than one argument may hold.
    const bodyFile = join(dir, 'baseline-body.bin');
    writeFileSync(bodyFile, body);
    const bareServer = await start(
      pin(1, [process.execPath, 'bench/baseline.mjs', String(port + 1), contentType, bodyFile]),
      process.env,
      () => false,
    );
    children.push(bareServer);

    console.log(`\n## ${scenario.name} — ${scenario.description}`);
    if (scenario.sequential) {
      console.log(`   prepared in ${prepareSeconds.toFixed(1)} s`);
      await runSequential(scenario, state, port, body.length, ours.pid, bareServer.pid);
      reportRss(scenario, ours);
      return;
    }
    console.log(
      `   ${rounds} rounds × ${seconds} s, ${connections} connections, response ${body.length} bytes, prepared in ${prepareSeconds.toFixed(1)} s`,
    );

    const source = sourceOf(scenario, state);
    // Requests to sign for a round: enough for what cardbazaar could possibly reach (never more
    // than the bare server's capacity, often bounded lower by the scenario), with room to spare.
    const ceiling = Math.min(capacity, scenario.expectedRps ?? capacity);
    const wanted = (rps: number, duration: number) => Math.ceil(Math.max(rps * 2, 200) * duration);
    let oursRps = ceiling / 2;
    const loadOurs = async (duration: number): Promise<LoadResult> => {
      // A round that ran out of signed requests sent some nonces twice: run it again with more.
      for (let attempt = 0; ; attempt++) {
        const result = await withCpu(ours.pid, () =>
          load(port, source, duration, wanted(Math.min(oursRps, ceiling), duration), true),
        );
        if (!result.wrapped || attempt === 2) return result;
        oursRps = Math.max(oursRps * 2, result.rps);
        // The server closes the last round's connections first: the per-address cap (64) counts them.
        await new Promise((r) => setTimeout(r, 1000));
        console.log(
          `   (ran out of signed requests at ${thousands(result.rps)} req/s, statuses ${JSON.stringify(result.statuses)}; again with more)`,
        );
      }
    };
    const loadBare = (duration: number) =>
      withCpu(bareServer.pid, () => load(port + 1, source, duration, 2000, false));

    // From here on, the best rate seen so far sizes each round (twice that, re-run if it ran out).
    oursRps = (await loadOurs(warmup)).rps;
    let bareMax = (await loadBare(warmup)).rps;
    const warnings: string[] = [];
    if (body.length <= SMALL_ANSWER && bareMax < CAPACITY_WARNING * capacity) {
      warnings.push(
        `warm-up baseline ${thousands(bareMax)} req/s < ${CAPACITY_WARNING} × the run's capacity ${thousands(capacity)}`,
      );
    }

    const ratios: number[] = [];
    const oursRates: number[] = [];
    const cpuRatios: number[] = [];
    const oursCpu: number[] = [];
    const latencies: Array<{ mean: number; p50: number; p99: number }> = [];
    const progressBefore = await background?.progress(databaseUrl);
    for (let r = 1; r <= rounds; r++) {
      const o = await loadOurs(seconds);
      const bare = await loadBare(seconds);
      oursRps = Math.max(oursRps, o.rps);
      bareMax = Math.max(bareMax, bare.rps);
      if (o.non2xx > 0 || o.errors > 0 || o.wrapped) {
        throw new Error(
          `${scenario.name}: ${o.non2xx} non-2xx answers and ${o.errors} socket errors under load` +
            ` (statuses ${JSON.stringify(o.statuses)}${o.wrapped ? ', nonces replayed: the signed requests ran out' : ''})`,
        );
      }
      const ratio = o.rps / bare.rps;
      ratios.push(ratio);
      oursRates.push(o.rps);
      if (o.latency) latencies.push(o.latency);
      const cpuRatio =
        o.cpuPerRequest && bare.cpuPerRequest ? bare.cpuPerRequest / o.cpuPerRequest : undefined;
      if (cpuRatio !== undefined) {
        cpuRatios.push(cpuRatio);
        oursCpu.push(o.cpuPerRequest!);
      }
      // The reference: the run's fixed-bytes capacity for small answers, this scenario's best
      // baseline for large ones (their bytes cost the baseline more than a small answer does).
      const reference = body.length <= SMALL_ANSWER ? capacity : bareMax;
      const low = bare.rps < CAPACITY_WARNING * reference;
      if (low) warnings.push(`round ${r}`);
      // Slow answers on a busy machine: none finished within the round, so it measured nothing.
      if (o.requests === 0) warnings.push(`round ${r} had no answer (run longer rounds: --seconds)`);
      console.log(
        `   round ${r}: cardbazaar ${thousands(o.rps)} req/s, node:http ${thousands(bare.rps)} req/s, ratio ${ratio.toFixed(3)}` +
          (cpuRatio !== undefined
            ? `; CPU ${thousands(o.cpuPerRequest!)} µs/answer (node:http ${thousands(bare.cpuPerRequest!)}), CPU ratio ${cpuRatio.toFixed(3)}`
            : '') +
          (o.latency
            ? `; latency ${o.latency.mean.toFixed(2)} ms mean, ${o.latency.p50.toFixed(2)} median, ${o.latency.p99.toFixed(2)} p99`
            : '') +
          (low
            ? `  ⚠ baseline below ${CAPACITY_WARNING} × ${thousands(reference)} req/s: the core was busy, this ratio flatters`
            : ''),
      );
    }
    if (background && progressBefore) {
      const after = await background.progress(databaseUrl);
      const moved = after.count - progressBefore.count;
      console.log(
        `   beside the requests over the rounds: ${moved.toLocaleString('en')} more (${after.note})`,
      );
      if (moved === 0) warnings.push('the work beside the requests stood still over the rounds');
    }
    if (latencies.length > 0) {
      const pick = (k: 'mean' | 'p50' | 'p99') => latencies.map((l) => l[k]);
      console.log(
        `   LATENCY ${scenario.name}: mean ${median(pick('mean')).toFixed(2)} ms (${range(pick('mean'), 2)}), ` +
          `median ${median(pick('p50')).toFixed(2)} ms (${range(pick('p50'), 2)}), p99 ${median(pick('p99')).toFixed(2)} ms (${range(pick('p99'), 2)}), ` +
          `${connections} connections, ${dialect}`,
      );
    }
    // The headline: the CPU ratio, which another process on the machine moves far less than the
    // request rates (docs/performance.md, "What is printed").
    if (cpuRatios.length > 0) {
      console.log(
        `   HEADLINE ${scenario.name}: CPU ratio ${median(cpuRatios).toFixed(3)} (range ${range(cpuRatios, 3)}), ` +
          `${thousands(median(oursCpu))} µs of server CPU per answer (${range(oursCpu, 0)}), ${dialect}`,
      );
    }
    console.log(
      `   RESULT ${scenario.name}: median ratio ${median(ratios).toFixed(3)} (range ${range(ratios, 3)}), ` +
        `cardbazaar ${thousands(median(oursRates))} req/s (${thousands(Math.min(...oursRates))}–${thousands(Math.max(...oursRates))}), ` +
        `${generator}, ${dialect}${warnings.length ? `; ⚠ ${warnings.length} flagged: ${warnings.join(', ')}` : ''}`,
    );
    reportRss(scenario, ours);
  } finally {
    await stopAll(children, scenario.name);
    await drop?.().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * SIGTERM, as an operator stops a server; one that has not exited 10 s later is reported (a
 * shutdown that hangs is a defect worth seeing) and killed, so the run still ends.
 */
async function stopAll(children: ChildProcess[], name: string): Promise<void> {
  const exited = (c: ChildProcess) => c.exitCode !== null || c.signalCode !== null;
  for (const c of children) c.kill('SIGTERM');
  const deadline = Date.now() + 10_000;
  await new Promise((r) => setTimeout(r, 300));
  while (children.some((c) => !exited(c)) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
  }
  for (const c of children.filter((c) => !exited(c))) {
    console.log(`   ⚠ ${name}: process ${c.pid} still running 10 s after SIGTERM; killed`);
    c.kill('SIGKILL');
  }
}

function reportRss(scenario: Scenario, ours: ChildProcess): void {
  const rss = peakRssMb(ours.pid);
  if (rss !== undefined) console.log(`   PEAK RSS ${scenario.name}: ${rss.toFixed(0)} MB (cardbazaar)`);
}

/**
 * One-shot writes (a checkout empties the cart it checks out, so a request cannot be replayed):
 * each round sends `requests` requests one after the other to cardbazaar, each with a fresh
 * `request(state, i)`, then as many to the baseline, and compares requests per second. One
 * connection, no load generator: this is the cost of one request against the bare server's.
 */
async function runSequential(
  scenario: Scenario,
  state: unknown,
  port: number,
  bytes: number,
  pid: number | undefined,
  barePid: number | undefined,
): Promise<void> {
  const perRound = scenario.sequential!.requests;
  let next = 0;
  const round = async (target: number, count: number, index: () => number): Promise<number> => {
    // Signed before the clock starts, as the load generators' rounds are (the header says so).
    const signed = Array.from({ length: count }, () => {
      const r = scenario.request(state, index());
      return { r, ...addressed(target, r) };
    });
    const started = performance.now();
    for (const { r, url, header } of signed) {
      const res = await fetch(url, {
        method: r.method,
        headers: {
          [header[0]]: header[1],
          ...(r.body ? { 'content-type': r.contentType ?? 'application/xml' } : {}),
        },
        body: r.body,
        redirect: 'manual',
      });
      const text = await res.text();
      if (target === port && !expected(scenario, res.status)) {
        throw new Error(
          `${scenario.name}: expected ${scenario.expectStatus}, got ${res.status}: ${text.slice(0, 300)}`,
        );
      }
    }
    return count / ((performance.now() - started) / 1000);
  };
  const fresh = () => next++;
  const sample = () => -1;
  // A round's worth of warm-up (three requests left V8 compiling through the first round), and
  // the quiet second every round is followed by: the warm-up's background work (its outbox) is
  // not the first round's.
  await round(port, perRound, fresh);
  await round(port + 1, perRound, sample);
  if (scenario.afterRound) await scenario.afterRound(state);
  await new Promise((r) => setTimeout(r, 1000));
  const ratios: number[] = [];
  const times: number[] = [];
  const settledTimes: number[] = [];
  console.log(
    `   ${rounds} rounds × ${perRound} sequential requests, one connection, response ${bytes} bytes`,
  );
  const cpuTimes: number[] = [];
  const cpuRatios: number[] = [];
  for (let r = 1; r <= rounds; r++) {
    const cpuBefore = cpuMicros(pid);
    const ours = await round(port, perRound, fresh);
    const settled = scenario.afterRound ? await scenario.afterRound(state) : undefined;
    // The CPU the round cost the server, its background loops' share included (the outbox is polled
    // every 500 ms): a quiet second costs next to nothing and catches what the round left to them.
    await new Promise((r) => setTimeout(r, 1000));
    const cpuAfter = cpuMicros(pid);
    const cpu =
      cpuBefore !== undefined && cpuAfter !== undefined
        ? (cpuAfter - cpuBefore) / 1000 / perRound
        : undefined;
    if (cpu !== undefined) cpuTimes.push(cpu);
    const bareBefore = cpuMicros(barePid);
    const bare = await round(port + 1, perRound, sample);
    const bareAfter = cpuMicros(barePid);
    const bareCpu =
      bareBefore !== undefined && bareAfter !== undefined
        ? (bareAfter - bareBefore) / 1000 / perRound
        : undefined;
    if (cpu !== undefined && bareCpu !== undefined && cpu > 0) cpuRatios.push(bareCpu / cpu);
    const ratio = ours / bare;
    ratios.push(ratio);
    times.push(1000 / ours);
    if (settled) settledTimes.push(1000 / ours + settled.settleMs / perRound);
    console.log(
      `   round ${r}: cardbazaar ${ours.toFixed(1)} req/s (${(1000 / ours).toFixed(2)} ms each${cpu === undefined ? '' : `, server CPU ${cpu.toFixed(1)} ms each`}), node:http ${bare.toFixed(0)} req/s, ratio ${ratio.toFixed(4)}` +
        (settled ? `; ${settled.note}` : ''),
    );
  }
  if (cpuRatios.length > 0) {
    console.log(
      `   HEADLINE ${scenario.name}: CPU ratio ${median(cpuRatios).toFixed(4)} (range ${range(cpuRatios, 4)}), ` +
        `${median(cpuTimes).toFixed(2)} ms of server CPU per request with its background work, ${dialect}`,
    );
  }
  console.log(
    `   RESULT ${scenario.name}: median ratio ${median(ratios).toFixed(4)} (range ${range(ratios, 4)}), ` +
      `${median(times).toFixed(2)} ms each (${range(times, 2)}), sequential, ${dialect}` +
      (cpuTimes.length > 0
        ? `; server CPU ${median(cpuTimes).toFixed(1)} ms each (${range(cpuTimes, 1)}) with its background work`
        : '') +
      (settledTimes.length > 0
        ? `; ${median(settledTimes).toFixed(2)} ms each (${range(settledTimes, 2)}) with the round's background work settled`
        : ''),
  );
}

const selected = scenarios.filter(
  (s) => !opts.only || (opts.exact ? s.name === opts.only : s.name.includes(opts.only)),
);
console.log(
  `cardbazaar benchmarks: ${selected.length} scenario(s) on ${dialect}${hasTaskset ? ', servers on core 1, load on core 0' : ''}, ` +
    `load by ${generator === 'wrk' ? 'wrk' : 'autocannon'} (requests signed before each round)` +
    (generator === 'autocannon' && !hasWrk
      ? '; install wrk (apt-get install wrk) for a lighter generator'
      : ''),
);
for (const [i, s] of selected.entries()) {
  // Measured again before every scenario: another process can halve it within a run.
  const capacity = await measureCapacity();
  console.log(
    `\ncapacity before "${s.name}": ${generator} against bare node:http on a small fixed answer reaches ${thousands(capacity)} req/s; ` +
      `rounds whose baseline stays below ${CAPACITY_WARNING} of it (small answers) are flagged ⚠`,
  );
  await runScenario(s as Scenario, i, capacity);
}

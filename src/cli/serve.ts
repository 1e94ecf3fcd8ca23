import { fstatSync } from 'node:fs';
import type { Command } from 'commander';
import type { Config } from '../config.js';
import { loadScenario, newSeed, ScenarioError } from '../domain/market/index.js';
import { seedDemo } from '../seed/index.js';
import { serveForever } from '../server.js';
import { openDatabase } from '../store/db.js';
import { migrateToLatest } from '../store/migrate.js';
import { CliError, configFrom, reportErrors, withServices } from './context.js';
import { progressBar } from './progress.js';

interface ServeCliOptions {
  printCredentials?: string;
  exitOnStdinClose?: boolean;
  market?: string;
  marketSeed?: string;
  marketDays: string;
  speed: string;
}

function marketOptions(opts: ServeCliOptions, config: Config) {
  if (config.mode === 'production')
    throw new CliError('The living market is a sandbox tool: it does not run in production.');
  if (config.workers > 1) throw new CliError('--market runs in a single process: leave out --workers.');
  if (!/^\d{1,5}$/.test(opts.marketDays) || Number(opts.marketDays) < 1)
    throw new CliError('--market-days must be a positive whole number.');
  const speed = Number(opts.speed);
  if (!Number.isFinite(speed) || speed <= 0 || speed > 10_000_000)
    throw new CliError('--speed must be a positive number (1440: a marketplace day a minute).');
  if (opts.marketSeed !== undefined && !/^[A-Za-z0-9_-]{1,40}$/.test(opts.marketSeed))
    throw new CliError('--market-seed must be 1 to 40 letters, digits, dashes or underscores.');
  let scenario;
  try {
    scenario = loadScenario(opts.market!);
  } catch (err) {
    if (err instanceof ScenarioError) throw new CliError(err.message);
    throw err;
  }
  return { scenario, seed: opts.marketSeed ?? newSeed(), days: Number(opts.marketDays), speed };
}

export function registerServeCommands(program: Command): void {
  program
    .command('serve')
    .description('Run the API server (migrates first; loads the demo data into an empty sandbox database).')
    .option(
      '--print-credentials <format>',
      "sandbox: once listening, print the base URL and the demo users' credentials as one JSON document on stdout (logs go to stderr)",
    )
    .option(
      '--exit-on-stdin-close',
      'stop when standard input closes (the default with --print-credentials when stdin is a pipe)',
    )
    .option('--no-exit-on-stdin-close', 'keep running when standard input closes')
    .option(
      '--market <name|file>',
      'sandbox: run a living market scenario beside the requests (calm, spike, sellout or a file)',
    )
    .option('--market-seed <n>', "the market's master seed (printed at start; a fresh one when absent)")
    .option('--market-days <d>', 'marketplace days the market runs', '365')
    .option('--speed <n>', 'marketplace time per real time: 1440 is a marketplace day a minute', '1440')
    .action(
      reportErrors(async (opts: ServeCliOptions, cmd: Command) => {
        if (opts.printCredentials !== undefined && opts.printCredentials !== 'json') {
          throw new CliError(`--print-credentials takes "json", not "${opts.printCredentials}".`);
        }
        const printCredentials = opts.printCredentials === 'json' ? 'json' : undefined;
        const config = configFrom(cmd);
        await serveForever(config, {
          printCredentials,
          exitOnStdinClose: opts.exitOnStdinClose ?? (printCredentials !== undefined && stdinIsPipe()),
          market: opts.market === undefined ? undefined : marketOptions(opts, config),
        });
      }),
    );

  program
    .command('migrate')
    .description('Bring the database schema up to date, then exit.')
    .action(
      reportErrors(async (_opts: unknown, cmd: Command) => {
        const database = openDatabase(configFrom(cmd).databaseUrl);
        try {
          const applied = await migrateToLatest(database);
          console.log(applied.length ? `Applied: ${applied.join(', ')}` : 'The schema is up to date.');
        } finally {
          await database.close();
        }
      }),
    );

  program
    .command('seed')
    .description('Load data into the database.')
    .option('--demo', 'the demo users, apps, catalog and stock (deterministic; existing parts are kept)')
    .option('--scale <n>', 'grow the demo catalog and stock by this factor, for benchmarks', '1')
    .action(
      reportErrors(async (opts: { demo?: boolean; scale: string }, cmd: Command) => {
        if (!opts.demo) throw new Error('say what to seed: --demo');
        const scale = Number(opts.scale);
        if (!Number.isFinite(scale) || scale <= 0) throw new Error('--scale must be a positive number');
        await withServices(cmd, (services) =>
          seedDemo(services, { out: (l) => console.log(l), scale, progress: progressBar() }),
        );
      }),
    );
}

/**
 * Whether a parent process feeds standard input through a pipe or socket (its closing then means
 * the parent is gone). A terminal, or /dev/null as under `docker run` without `-i` and systemd, is
 * no such signal: /dev/null reads as closed at once.
 */
function stdinIsPipe(): boolean {
  try {
    const st = fstatSync(0);
    return st.isFIFO() || st.isSocket();
  } catch {
    return false;
  }
}

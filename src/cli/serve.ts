import { fstatSync } from 'node:fs';
import type { Command } from 'commander';
import { seedDemo } from '../seed/index.js';
import { serveForever } from '../server.js';
import { openDatabase } from '../store/db.js';
import { migrateToLatest } from '../store/migrate.js';
import { CliError, configFrom, reportErrors, withServices } from './context.js';
import { progressBar } from './progress.js';

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
    .action(
      reportErrors(async (opts: { printCredentials?: string; exitOnStdinClose?: boolean }, cmd: Command) => {
        if (opts.printCredentials !== undefined && opts.printCredentials !== 'json') {
          throw new CliError(`--print-credentials takes "json", not "${opts.printCredentials}".`);
        }
        const printCredentials = opts.printCredentials === 'json' ? 'json' : undefined;
        await serveForever(configFrom(cmd), {
          printCredentials,
          exitOnStdinClose: opts.exitOnStdinClose ?? (printCredentials !== undefined && stdinIsPipe()),
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

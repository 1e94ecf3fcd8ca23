import type { Command } from 'commander';
import { seedDemo } from '../seed/index.js';
import { serveForever } from '../server.js';
import { openDatabase } from '../store/db.js';
import { migrateToLatest } from '../store/migrate.js';
import { configFrom, reportErrors, withServices } from './context.js';
import { progressBar } from './progress.js';

export function registerServeCommands(program: Command): void {
  program
    .command('serve')
    .description('Run the API server (migrates first; loads the demo data into an empty sandbox database).')
    .action(
      reportErrors(async (_opts: unknown, cmd: Command) => {
        await serveForever(configFrom(cmd));
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

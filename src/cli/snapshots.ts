import type { Command } from 'commander';
import {
  deleteSnapshot,
  listSnapshots,
  loadSnapshot,
  resetToBaseline,
  saveSnapshot,
} from '../domain/snapshots.js';
import type { Services } from '../services.js';
import { CliError, printJson, reportErrors, withServices } from './context.js';

/**
 * `cardbazaar snapshot save|load|list|delete` (sandbox, SQLite): the whole marketplace saved and
 * brought back, beside running servers (src/domain/snapshots.ts). Each prints JSON, with the time
 * it took.
 */
export function registerSnapshotCommands(program: Command): void {
  const snapshot = program
    .command('snapshot')
    .description('Sandbox: save the whole marketplace under a name and bring it back (SQLite).');

  // This command's own database in memory would be a new, empty one: the server's is reached only
  // through its control API.
  const notInMemory = (services: Services) => {
    if (services.database.dialect === 'sqlite' && services.database.location === ':memory:') {
      throw new CliError(
        'A database in memory (DATABASE_URL=:memory:) lives inside the server holding it: use its control API (POST /_cardbazaar/snapshots, docs/testing-your-client.md, "The control API").',
      );
    }
  };

  const timed = async <T extends object>(work: () => Promise<T>) => {
    const started = performance.now();
    const result = await work();
    return { ...result, ms: Math.round((performance.now() - started) * 10) / 10 };
  };

  snapshot
    .command('save <name>')
    .description('Save the database and the marketplace clock as NAME (replacing a snapshot of that name).')
    .action(
      reportErrors(async (name: string, _opts: unknown, cmd: Command) => {
        await withServices(cmd, async (services) => {
          notInMemory(services);
          printJson(await timed(() => saveSnapshot(services, name)));
        });
      }),
    );

  snapshot
    .command('load <name>')
    .description('Replace the database with NAME; running servers answer from it at once.')
    .action(
      reportErrors(async (name: string, _opts: unknown, cmd: Command) => {
        await withServices(cmd, async (services) => {
          notInMemory(services);
          printJson(await timed(() => loadSnapshot(services, name)));
        });
      }),
    );

  snapshot
    .command('list')
    .description('The saved snapshots as JSON (name, size, when saved).')
    .action(
      reportErrors(async (_opts: unknown, cmd: Command) => {
        await withServices(cmd, async (services) => printJson(listSnapshots(services)));
      }),
    );

  snapshot
    .command('reset')
    .description(
      'Bring back the state a server first started with on this database (after loading the demo data); clears the faults.',
    )
    .action(
      reportErrors(async (_opts: unknown, cmd: Command) => {
        await withServices(cmd, async (services) => {
          notInMemory(services);
          await resetToBaseline(services);
          console.log('Reset to the baseline.');
        });
      }),
    );

  snapshot
    .command('delete <name>')
    .description('Delete a snapshot.')
    .action(
      reportErrors(async (name: string, _opts: unknown, cmd: Command) => {
        await withServices(cmd, async (services) => {
          deleteSnapshot(services, name);
          console.log(`Snapshot "${name}" deleted.`);
        });
      }),
    );
}

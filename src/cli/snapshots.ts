import type { Command } from 'commander';
import { deleteSnapshot, listSnapshots, loadSnapshot, saveSnapshot } from '../domain/snapshots.js';
import { printJson, reportErrors, withServices } from './context.js';

/**
 * `cardbazaar snapshot save|load|list|delete` (sandbox, SQLite): the whole marketplace saved and
 * brought back, beside running servers (src/domain/snapshots.ts). Each prints JSON, with the time
 * it took.
 */
export function registerSnapshotCommands(program: Command): void {
  const snapshot = program
    .command('snapshot')
    .description('Sandbox: save the whole marketplace under a name and bring it back (SQLite).');

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

import type { Command } from 'commander';
import { FixtureError, readFixtureFile, runFixture } from '../sandbox/fixtures.js';
import { CliError, printJson, reportErrors, withServices } from './context.js';

export function registerFixtureCommands(program: Command): void {
  program
    .command('fixtures')
    .description(
      'Sandbox: build the world a test needs from a file (docs/testing-your-client.md, "Build a world from a file").',
    )
    .command('run')
    .argument('<file>', 'a fixture file, JSON (.json) or YAML')
    .description(
      'Create users, apps, products, articles, carts, orders, messages, wants lists and coupons in one transaction; prints what was created as JSON. A failure names the step and field and leaves nothing behind.',
    )
    .action(
      reportErrors(async (file: string, _opts: unknown, cmd: Command) => {
        try {
          const { steps, baseDir } = readFixtureFile(file);
          await withServices(cmd, async (services) => {
            const run = await runFixture(services, steps, { baseDir });
            printJson(run.created);
          });
        } catch (err) {
          if (err instanceof FixtureError) throw new CliError(`fixture ${file}: ${err.message}`);
          throw err;
        }
      }),
    );
}

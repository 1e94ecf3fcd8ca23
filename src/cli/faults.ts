import type { Command } from 'commander';
import { addFault, faultList, removeFaults } from '../domain/faults.js';
import type { Services } from '../services.js';
import { CliError, printJson, reportErrors, withServices } from './context.js';

/**
 * `cardbazaar faults add|list|delete|clear` (sandbox): failures of the live service reproduced on
 * purpose. The faults are rows of the database, so every server on it applies a change from its
 * next request (src/http/control.ts), whether or not it was running when the command ran.
 */
export function registerFaultCommands(program: Command): void {
  const faults = program
    .command('faults')
    .description(
      'Sandbox: make requests fail on purpose (see docs/testing-your-client.md, "Break it on purpose").',
    );

  const sandboxOnly = (services: Services) => {
    if (services.config.mode === 'production') {
      throw new CliError('Faults are a sandbox tool: production refuses them.');
    }
  };

  faults
    .command('add')
    .description('Add a fault; prints it as JSON (with its idFault).')
    .requiredOption(
      '--path <pattern>',
      'the requests it hits, relative to /ws/v2.0: /articles/*, /stock/**, /order/:idOrder',
    )
    .option('--method <method>', 'only this method (GET, POST, PUT, DELETE); default: any')
    .option(
      '--status <status>',
      'answer with this status, 400 to 599, worded as the live service does (503 Slow Down, 429 limit reached, 502…)',
    )
    .option('--description <text>', "the answer's mkm_error_description instead of the live service's words")
    .option('--rate <share>', 'the share of matching requests it hits, e.g. 0.2 (default 1: all)')
    .option('--latency <duration>', 'delay before the answer (or before the request goes on), e.g. 2s, 500ms')
    .option('--drop', 'close the connection without an answer')
    .option('--seed <n>', 'seed of the random choice of hits, for the same sequence on every run')
    .option('--times <n>', 'only the next N matching requests (counted across every server on the database)')
    .option('--app <appToken>', 'only requests signed with this app token (oauth_consumer_key)')
    .option('--user <username>', 'only requests made for this user')
    .option('--body <how>', 'spoil the answer body: truncated (cut short, connection closed) or malformed')
    .option('--expires-in <duration>', 'end the fault after this long on the marketplace clock, e.g. 2h, 8d')
    .action(
      reportErrors(
        async (
          opts: {
            path: string;
            method?: string;
            status?: string;
            description?: string;
            rate?: string;
            latency?: string;
            drop?: boolean;
            seed?: string;
            times?: string;
            app?: string;
            user?: string;
            body?: string;
            expiresIn?: string;
          },
          cmd: Command,
        ) => {
          await withServices(cmd, async (services) => {
            sandboxOnly(services);
            printJson(await addFault(services, opts));
          });
        },
      ),
    );

  faults
    .command('list')
    .description('Print the faults in force as JSON (the first that matches a request applies).')
    .action(
      reportErrors(async (_opts: unknown, cmd: Command) => {
        await withServices(cmd, async (services) => {
          sandboxOnly(services);
          printJson(await faultList(services));
        });
      }),
    );

  faults
    .command('delete <idFault>')
    .description('Remove one fault.')
    .action(
      reportErrors(async (id: string, _opts: unknown, cmd: Command) => {
        if (!/^\d{1,9}$/.test(id)) throw new CliError(`"${id}" is not a fault id (faults list shows them).`);
        await withServices(cmd, async (services) => {
          sandboxOnly(services);
          await removeFaults(services, Number(id));
          console.log(`Fault ${Number(id)} removed.`);
        });
      }),
    );

  faults
    .command('clear')
    .description('Remove every fault: requests are answered normally again.')
    .action(
      reportErrors(async (_opts: unknown, cmd: Command) => {
        await withServices(cmd, async (services) => {
          sandboxOnly(services);
          const n = await removeFaults(services);
          console.log(`${n} fault${n === 1 ? '' : 's'} removed.`);
        });
      }),
    );
}

import type { Command } from 'commander';
import { parseDuration } from '../clock.js';
import { formatTimestamp } from '../format.js';
import { CLOCK_OFFSET_SETTING } from '../services.js';
import { getSetting, putSetting } from '../store/settings.js';
import { CliError, reportErrors, withServices } from './context.js';

/**
 * The sandbox's marketplace clock: waiting periods, reservation expiry and shipping times read it,
 * so a client can try the paths that take days without waiting. A running server follows a change
 * within a second. OAuth timestamps are checked against real time regardless.
 */
export function registerClockCommands(program: Command): void {
  const clock = program.command('clock').description('The sandbox marketplace clock.');

  const show = async (cmd: Command) =>
    withServices(cmd, async (services) => {
      const offset = Number((await getSetting(services.database.db, CLOCK_OFFSET_SETTING)) ?? 0);
      console.log(
        `Marketplace time: ${formatTimestamp(Date.now() + offset)} (offset ${offset / 3_600_000} h)`,
      );
    });

  clock
    .command('show')
    .description('Print the marketplace time and its offset from real time.')
    .action(reportErrors(async (_opts: unknown, cmd: Command) => show(cmd)));

  clock
    .command('advance <duration>')
    .description('Move the marketplace clock forward, e.g. 8d, 12h, 90m, 1h30m.')
    .action(
      reportErrors(async (duration: string, _opts: unknown, cmd: Command) => {
        await withServices(cmd, async (services) => {
          if (services.config.mode === 'production')
            throw new CliError('The clock cannot be moved in production.');
          let ms: number;
          try {
            ms = parseDuration(duration);
          } catch (err) {
            throw new CliError((err as Error).message);
          }
          await services.database.transaction(async (tx) => {
            const offset = Number((await getSetting(tx, CLOCK_OFFSET_SETTING)) ?? 0);
            await putSetting(tx, CLOCK_OFFSET_SETTING, String(offset + ms));
          });
        });
        await show(cmd);
      }),
    );

  clock
    .command('reset')
    .description('Put the marketplace clock back to real time.')
    .action(
      reportErrors(async (_opts: unknown, cmd: Command) => {
        await withServices(cmd, (services) => putSetting(services.database.db, CLOCK_OFFSET_SETTING, '0'));
        await show(cmd);
      }),
    );
}

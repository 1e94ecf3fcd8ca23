import type { Command } from 'commander';
import { advanceClock, type ClockView, readClock, resetClock, setClock } from '../domain/clock.js';
import { reportErrors, withServices } from './context.js';

/**
 * The sandbox's marketplace clock (src/domain/clock.ts, the same functions as the control API's
 * `/_cardbazaar/clock`): waiting periods, reservation expiry and shipping times read it, so a client
 * can try the paths that take days without waiting. A running server follows a change from its
 * next request. OAuth timestamps are checked against real time regardless.
 */
export function registerClockCommands(program: Command): void {
  const clock = program.command('clock').description('The sandbox marketplace clock.');

  const print = (v: ClockView) =>
    console.log(`Marketplace time: ${v.now} (offset ${v.offsetMs / 3_600_000} h)`);

  clock
    .command('show')
    .description('Print the marketplace time and its offset from real time.')
    .action(
      reportErrors(async (_opts: unknown, cmd: Command) =>
        withServices(cmd, async (services) => print(await readClock(services))),
      ),
    );

  clock
    .command('advance <duration>')
    .description('Move the marketplace clock forward, e.g. 8d, 12h, 90m, 1h30m.')
    .action(
      reportErrors(async (duration: string, _opts: unknown, cmd: Command) =>
        withServices(cmd, async (services) => print(await advanceClock(services, duration))),
      ),
    );

  clock
    .command('set <time>')
    .description('Put the marketplace clock at TIME (ISO 8601, not before real time).')
    .action(
      reportErrors(async (time: string, _opts: unknown, cmd: Command) =>
        withServices(cmd, async (services) => print(await setClock(services, time))),
      ),
    );

  clock
    .command('reset')
    .description('Put the marketplace clock back to real time.')
    .action(
      reportErrors(async (_opts: unknown, cmd: Command) =>
        withServices(cmd, async (services) => print(await resetClock(services))),
      ),
    );
}

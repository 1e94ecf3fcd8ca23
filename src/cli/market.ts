import type { Command } from 'commander';
import { ManualClock } from '../clock.js';
import {
  marketStatusView,
  readMarketState,
  runMarket,
  setMarketStatus,
  newSeed,
} from '../domain/market/index.js';
import { loadScenario, ScenarioError } from '../domain/market/scenario.js';
import { formatCents, formatTimestamp } from '../format.js';
import { CLOCK_OFFSET_SETTING, createServices } from '../services.js';
import { countMarketActions, marketActions } from '../store/market.js';
import { getSetting, putSetting } from '../store/settings.js';
import { CliError, configFrom, reportErrors, withServices } from './context.js';

/**
 * `cardbazaar market …` (sandbox): the living market of simulated traders (src/domain/market/).
 * `run` plays a scenario for D marketplace days as fast as it can, moving the sandbox clock with it,
 * and exits; `log` and `status` show what it did.
 */
export function registerMarketCommands(program: Command): void {
  const market = program
    .command('market')
    .description('Sandbox: a living market of simulated traders (run, log, status, pause, resume, stop).');

  market
    .command('run')
    .description(
      'Run a market scenario (calm, spike, sellout or a JSON/YAML file) for D marketplace days as fast as possible; prints the seed.',
    )
    .requiredOption('--scenario <name|file>', 'calm, spike, sellout, or a path to a scenario file')
    .option('--seed <n>', 'the master seed (a fresh one is drawn and printed when absent)')
    .option('--days <d>', 'marketplace days to run', '7')
    .option('--quiet', 'print only the summary, not a line per day')
    .action(
      reportErrors(
        async (opts: { scenario: string; seed?: string; days: string; quiet?: boolean }, cmd: Command) => {
          const config = configFrom(cmd);
          if (config.mode === 'production')
            throw new CliError('The living market is a sandbox tool: it does not run in production.');
          if (!/^\d{1,5}$/.test(opts.days) || Number(opts.days) < 1)
            throw new CliError('--days must be a positive whole number.');
          if (opts.seed !== undefined && !/^[A-Za-z0-9_-]{1,40}$/.test(opts.seed))
            throw new CliError('--seed must be 1 to 40 letters, digits, dashes or underscores.');
          let scenario;
          try {
            scenario = loadScenario(opts.scenario);
          } catch (err) {
            if (err instanceof ScenarioError) throw new CliError(err.message);
            throw err;
          }
          const seed = opts.seed ?? newSeed();
          // The market moves the marketplace clock itself, step by step, from the sandbox's time now;
          // at the end the sandbox clock is left where the market stopped.
          const probe = await createServices({ ...config, logLevel: 'warn' });
          const offset = Number((await getSetting(probe.database.db, CLOCK_OFFSET_SETTING)) ?? 0);
          await probe.close();
          const clock = new ManualClock(Date.now() + offset);
          const services = await createServices(
            { ...config, logLevel: process.env.LOG_LEVEL ?? 'warn' },
            { clock },
          );
          try {
            console.log(`Market ${scenario.name}, seed ${seed}, ${opts.days} days`);
            const summary = await runMarket(services, clock, {
              scenario,
              seed,
              days: Number(opts.days),
              onDay: (day, actions) => {
                if (opts.quiet) return;
                const ok = actions.filter((a) => a.outcome === 'ok').length;
                console.log(
                  `day ${day}: ${actions.length} actions (${ok} done, ${actions.length - ok} refused) — ${formatTimestamp(clock.now())}`,
                );
              },
            });
            await putSetting(services.database.db, CLOCK_OFFSET_SETTING, String(clock.now() - Date.now()));
            console.log(
              `Done: ${summary.traders} traders, ${summary.products} products, ${summary.actions} actions over ${summary.days} days; seed ${seed}. Marketplace time: ${formatTimestamp(summary.end)}`,
            );
          } finally {
            await services.close();
          }
        },
      ),
    );

  market
    .command('log')
    .description('Print the market log: every simulated action with its trader, reason and seed position.')
    .option('--json', 'one JSON action a line')
    .option('--last <n>', 'only the last n actions')
    .action(
      reportErrors(async (opts: { json?: boolean; last?: string }, cmd: Command) => {
        if (opts.last !== undefined && !/^\d{1,7}$/.test(opts.last))
          throw new CliError('--last must be a whole number.');
        await withServices(cmd, async (services) => {
          const db = services.database.db;
          const print = (rows: Awaited<ReturnType<typeof marketActions>>) => {
            for (const a of rows) {
              if (opts.json) {
                console.log(JSON.stringify({ ...a, detail: JSON.parse(a.detail) as unknown }));
              } else {
                console.log(
                  `${formatTimestamp(a.createdAt)}  d${a.day} s${a.step}  ${a.trader} #${a.seedPosition}  ${a.action}  ${a.reason}${a.outcome === 'ok' ? '' : `  → ${a.outcome}`}  ${a.detail === '{}' ? '' : a.detail}`,
                );
              }
            }
          };
          if (opts.last !== undefined) {
            print(await marketActions(db, { last: Number(opts.last) }));
            return;
          }
          // Page through: a long run's log never sits in memory at once.
          let after = 0;
          for (;;) {
            const rows = await marketActions(db, { afterId: after, limit: 1000 });
            if (rows.length === 0) break;
            print(rows);
            after = rows.at(-1)!.idAction;
          }
        });
      }),
    );

  market
    .command('status')
    .description(
      "Print the market's state: its run, traders, and each product's fair value beside its price guide.",
    )
    .option('--json', 'as JSON')
    .action(
      reportErrors(async (opts: { json?: boolean }, cmd: Command) => {
        await withServices(cmd, async (services) => {
          const view = await marketStatusView(services);
          if (opts.json) {
            console.log(JSON.stringify(view, null, 2));
            return;
          }
          if (!view.state) {
            console.log('No market has run on this database yet (cardbazaar market run --scenario calm).');
            return;
          }
          const s = view.state;
          console.log(
            `Market ${s.scenario} (seed ${s.seed}): ${s.status}, day ${s.day} of ${s.days}, ${await countMarketActions(services.database.db)} actions logged; last step at ${formatTimestamp(s.updatedAt)}`,
          );
          console.log(`Traders: ${view.traders.map((k) => `${k.count} ${k.kind}`).join(', ')}`);
          console.log('Product                                   fair     low     avg   trend    avg1');
          const cell = (c: number | null) => (c === null ? '—' : formatCents(c)).padStart(8);
          for (const v of view.values) {
            console.log(
              `${`${v.idProduct} ${v.enName}`.slice(0, 40).padEnd(40)}${cell(v.fairValue)}${cell(v.low)}${cell(v.avg)}${cell(v.trend)}${cell(v.avg1)}`,
            );
          }
        });
      }),
    );

  for (const [name, status, what] of [
    ['pause', 'paused', 'Pause a running market (a server started with --market): it waits until resumed.'],
    ['resume', 'running', 'Resume a paused market.'],
    ['stop', 'stopped', 'Stop a running market after its current step.'],
  ] as const) {
    market
      .command(name)
      .description(what)
      .action(
        reportErrors(async (_opts: unknown, cmd: Command) => {
          await withServices(cmd, async (services) => {
            if (services.config.mode === 'production')
              throw new CliError('The living market is a sandbox tool: it does not run in production.');
            const before = await readMarketState(services);
            if (!before) throw new CliError('No market has run on this database yet.');
            if (before.status === 'finished' || (before.status === 'stopped' && status !== 'stopped'))
              throw new CliError(`The market is ${before.status}: there is nothing to ${name}.`);
            const state = await setMarketStatus(services, status);
            console.log(`Market ${state.scenario}: ${state.status}`);
          });
        }),
      );
  }
}

import type { Command } from 'commander';
import { refreshPriceGuide } from '../domain/priceguide.js';
import { ImportError } from '../importer/errors.js';
import { importCatalogFiles } from '../importer/import.js';
import { CliError, reportErrors, withServices } from './context.js';
import { progressBar } from './progress.js';

export function registerCatalogCommands(program: Command): void {
  const catalog = program.command('catalog').description('The product catalog.');
  catalog
    .command('import')
    .description(
      'Import Cardmarket catalog files: products_singles_N.json, products_nonsingles_N.json, price_guide_N.json, or the CSV product list (streaming; a second import updates, never duplicates; a malformed file imports nothing).',
    )
    .argument('<files...>', 'the files to import')
    .option('--game <idGame>', 'the game of product files whose name does not end in _{idGame}')
    .action(
      reportErrors(async (files: string[], opts: { game?: string }, cmd: Command) => {
        const idGame = opts.game === undefined ? undefined : Number(opts.game);
        if (idGame !== undefined && (!Number.isInteger(idGame) || idGame < 1)) {
          throw new CliError('--game must be a game id such as 1 (Magic), 3 (Yu-Gi-Oh!) or 6 (Pokémon)');
        }
        await withServices(cmd, async (services) => {
          try {
            const summaries = await importCatalogFiles(services, files, { idGame, progress: progressBar() });
            for (const s of summaries) {
              const skipped = s.skipped > 0 ? ` (${s.skipped} of products not in the catalog skipped)` : '';
              console.log(
                `${s.file}: ${s.records - s.skipped} ${s.kind === 'products' ? 'products' : 'price guides'} imported${skipped}`,
              );
            }
          } catch (err) {
            if (err instanceof ImportError) throw new CliError(`${err.message} — nothing was imported`);
            throw err;
          }
        });
      }),
    );

  const guide = program.command('priceguide').description('The price guide.');
  guide
    .command('refresh')
    .description('Recompute the price guide of every product now (the server also does it on a schedule).')
    .action(
      reportErrors(async (_opts: unknown, cmd: Command) => {
        await withServices(cmd, async (services) => {
          const changed = await refreshPriceGuide(services);
          console.log(`Price guide refreshed: ${changed} product guides changed.`);
        });
      }),
    );
}

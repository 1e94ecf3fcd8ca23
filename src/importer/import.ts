import { statSync } from 'node:fs';
import { basename, extname } from 'node:path';
import type { DomainContext } from '../domain/context.js';
import { recomputeGuides } from '../domain/priceguide.js';
import { type Progress, silentProgress } from '../seed/progress.js';
import { withBulkLoad } from '../store/bulk.js';
import { ensureGame, upsertImportedGuides, upsertProducts } from '../store/catalog-import.js';
import { readCsvRecords } from './csv-records.js';
import { ImportError } from './errors.js';
import { gameNamed } from './games.js';
import { type JsonFileKind, readJsonRecords } from './json-records.js';
import {
  csvProductRecord,
  type PriceGuideRecord,
  type ProductRecord,
  priceGuideRecord,
  productRecord,
  RecordError,
} from './records.js';

/**
 * `cardbazaar catalog import FILE…`: Cardmarket's product files (`products_singles_{idGame}.json`,
 * `products_nonsingles_{idGame}.json`), price guide files (`price_guide_{idGame}.json`) and the
 * older CSV product list. Two passes over the files, both streaming: the first checks every record
 * of every file and writes nothing, so a malformed file is refused whole (with the line and record
 * at fault); the second writes in batches of upserts, so a second import updates instead of
 * duplicating. Imported price guides stand in where the marketplace has no figures of its own.
 */
export interface ImportOptions {
  /** The game of product files whose name does not say it. */
  idGame?: number;
  progress?: Progress;
}

export interface FileSummary {
  file: string;
  kind: 'products' | 'priceGuides';
  records: number;
  /** Price guides of products the catalog does not have. */
  skipped: number;
}

const BATCH = 1000;

type Format = 'json' | 'csv';

interface Source {
  path: string;
  name: string;
  format: Format;
  idGame: number | undefined;
  bytes: number;
  kind?: JsonFileKind;
}

export async function importCatalogFiles(
  ctx: DomainContext,
  paths: string[],
  options: ImportOptions = {},
): Promise<FileSummary[]> {
  if (paths.length === 0) throw new ImportError('name at least one file to import');
  const progress = options.progress ?? silentProgress;
  const sources = paths.map((path) => source(path, options.idGame));
  const total = sources.reduce((n, s) => n + s.bytes, 0);

  progress.start('Checking', total);
  for (const s of sources) await check(s, (bytes) => progress.advance(bytes));
  progress.finish();

  progress.start('Importing', total);
  const summaries: FileSummary[] = [];
  await withBulkLoad(ctx.database.db, async () => {
    for (const s of sources) summaries.push(await write(ctx, s, (bytes) => progress.advance(bytes)));
  });
  progress.finish();
  return summaries;
}

function source(path: string, idGame: number | undefined): Source {
  const name = basename(path);
  let bytes: number;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) throw new Error('not a file');
    bytes = stat.size;
  } catch {
    throw new ImportError(`${name}: cannot read ${path}`);
  }
  const ext = extname(name).toLowerCase();
  if (ext !== '.json' && ext !== '.csv') {
    throw new ImportError(
      `${name}: unknown format (expected a .json product or price guide file, or a .csv product list)`,
    );
  }
  const fromName = /_(\d+)\.(json|csv)$/i.exec(name);
  return {
    path,
    name,
    format: ext === '.json' ? 'json' : 'csv',
    idGame: idGame ?? (fromName ? Number(fromName[1]) : undefined),
    bytes,
  };
}

function located(s: Source, line: number, what: string, err: unknown): ImportError {
  const message = err instanceof RecordError ? err.message : String((err as Error).message ?? err);
  return new ImportError(`${s.name}: line ${line}, ${what}: ${message}`);
}

function describe(kind: JsonFileKind, index: number, value: unknown): string {
  const id = (value as { idProduct?: unknown } | null)?.idProduct;
  return `record ${kind}[${index}]${typeof id === 'number' || typeof id === 'string' ? ` (idProduct ${id})` : ''}`;
}

function requireGame(s: Source): number {
  if (s.idGame === undefined) {
    throw new ImportError(
      `${s.name}: cannot tell which game these products belong to: name the file like products_singles_1.json or pass --game`,
    );
  }
  return s.idGame;
}

async function check(s: Source, onBytes: (n: number) => void): Promise<void> {
  try {
    if (s.format === 'csv') {
      requireGame(s);
      await readCsvRecords(
        s.path,
        (fields, line) => {
          try {
            csvProductRecord(fields);
          } catch (err) {
            throw located(s, line, `row idProduct ${fields[0] ?? '?'}`, err);
          }
        },
        onBytes,
      );
      return;
    }
    const { kind } = await readJsonRecords(
      s.path,
      (r) => {
        try {
          if (r.kind === 'products') productRecord(r.value);
          else priceGuideRecord(r.value);
        } catch (err) {
          throw located(s, r.line, describe(r.kind, r.index, r.value), err);
        }
      },
      onBytes,
    );
    if (kind === undefined) {
      throw new ImportError(
        `${s.name}: neither a "products" nor a "priceGuides" list with records was found`,
      );
    }
    if (kind === 'products') requireGame(s);
    s.kind = kind;
  } catch (err) {
    if (err instanceof ImportError && !err.message.startsWith(`${s.name}:`)) {
      throw new ImportError(`${s.name}: ${err.message}`);
    }
    throw err;
  }
}

async function write(ctx: DomainContext, s: Source, onBytes: (n: number) => void): Promise<FileSummary> {
  const kind = s.format === 'csv' ? 'products' : s.kind!;
  let records = 0;
  let skipped = 0;
  if (kind === 'products') {
    const idGame = requireGame(s);
    const [name, abbreviation] = gameNamed(idGame);
    await ctx.database.transaction((tx) => ensureGame(tx, idGame, name, abbreviation));
    const batch = new Map<number, ProductRecord>();
    const flush = async () => {
      const rows = [...batch.values()];
      batch.clear();
      await ctx.database.transaction((tx) => upsertProducts(tx, idGame, rows));
    };
    const add = async (r: ProductRecord) => {
      records++;
      batch.set(r.idProduct, r);
      if (batch.size >= BATCH) await flush();
    };
    if (s.format === 'csv') await readCsvRecords(s.path, (fields) => add(csvProductRecord(fields)), onBytes);
    else await readJsonRecords(s.path, (r) => add(productRecord(r.value)), onBytes);
    if (batch.size > 0) await flush();
  } else {
    const batch = new Map<number, PriceGuideRecord>();
    const flush = async () => {
      const rows = [...batch.values()];
      batch.clear();
      const now = ctx.clock.now();
      await ctx.database.transaction(async (tx) => {
        const written = await upsertImportedGuides(tx, rows, now);
        skipped += rows.length - written.length;
        await recomputeGuides(tx, now, written);
      });
    };
    await readJsonRecords(
      s.path,
      async (r) => {
        records++;
        const g = priceGuideRecord(r.value);
        batch.set(g.idProduct, g);
        if (batch.size >= BATCH) await flush();
      },
      onBytes,
    );
    if (batch.size > 0) await flush();
  }
  return { file: s.name, kind, records, skipped };
}

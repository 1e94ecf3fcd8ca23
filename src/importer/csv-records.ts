import { createReadStream } from 'node:fs';
import { parse } from 'csv-parse';
import { ImportError } from './errors.js';
import { PRODUCT_LIST_HEADER } from '../domain/catalog-files.js';

/**
 * Streams the rows of the legacy CSV product list (`idProduct,Name,Category ID,Category,Expansion
 * ID,Metacard ID,Date Added`, fields usually quoted) after checking its header, with each row's
 * line. A malformed file is an ImportError naming the line.
 */
export async function readCsvRecords(
  path: string,
  onRow: (fields: string[], line: number) => void | Promise<void>,
  onBytes: (bytes: number) => void = () => {},
): Promise<number> {
  const file = createReadStream(path, { highWaterMark: 256 * 1024 });
  file.on('data', (chunk) => onBytes(chunk.length));
  const parser = file.pipe(
    parse({ bom: true, relax_column_count: true, skip_empty_lines: true, trim: true, info: true }),
  );
  let rows = 0;
  let header = true;
  try {
    for await (const { record, info } of parser as AsyncIterable<{
      record: string[];
      info: { lines: number };
    }>) {
      if (header) {
        header = false;
        const got = record.map((f) => f.trim().toLowerCase());
        if (got.join(',') !== PRODUCT_LIST_HEADER.map((c) => c.toLowerCase()).join(',')) {
          throw new ImportError(
            `line ${info.lines}: the header must be ${PRODUCT_LIST_HEADER.join(',')} (got ${record.join(',')})`,
          );
        }
        continue;
      }
      rows++;
      await onRow(record, info.lines);
    }
  } catch (err) {
    file.destroy();
    if (err instanceof ImportError) throw err;
    const e = err as { message: string; lines?: number };
    throw new ImportError(
      `line ${e.lines ?? '?'}: malformed CSV (${e.message.replace(/^Invalid [^:]+: /, '')})`,
    );
  }
  if (header) throw new ImportError('line 1: the file is empty');
  return rows;
}

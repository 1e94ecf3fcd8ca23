import { createReadStream } from 'node:fs';
import { Tokenizer, TokenParser, TokenType } from '@streamparser/json';
import { ImportError } from './errors.js';

/**
 * Streams the records of a Cardmarket catalog file (`{"version", "createdAt", "products": […]}` or
 * `{…, "priceGuides": […]}`) one at a time, never holding the file in memory, with the line each
 * record starts on. Malformed JSON is an ImportError naming the line.
 */
export type JsonFileKind = 'products' | 'priceGuides';

export interface JsonRecord {
  kind: JsonFileKind;
  /** 0-based position in the array. */
  index: number;
  /** 1-based line the record starts on. */
  line: number;
  value: unknown;
}

export async function readJsonRecords(
  path: string,
  onRecord: (record: JsonRecord) => void | Promise<void>,
  onBytes: (bytes: number) => void = () => {},
): Promise<{ kind: JsonFileKind | undefined; records: number }> {
  const tokenizer = new Tokenizer();
  const parser = new TokenParser({ paths: ['$.products.*', '$.priceGuides.*'], keepStack: false });
  let failure: ImportError | undefined;
  let kind: JsonFileKind | undefined;
  let records = 0;
  const pending: JsonRecord[] = [];

  // Lines: newlines counted chunk by chunk; a token's line is found from its byte offset. Offsets
  // only grow within a chunk, so the count resumes where the last token left it: rescanning from
  // the chunk's start for every record made a chunk of many small records quadratic.
  let chunk: Buffer = Buffer.alloc(0);
  let chunkStart = 0;
  let linesBefore = 0;
  let scanned = 0;
  let scannedLine = 1;
  const lineAt = (offset: number) => {
    const end = Math.min(offset - chunkStart, chunk.length);
    if (end < scanned) {
      scanned = 0;
      scannedLine = linesBefore + 1;
    }
    for (; scanned < end; scanned++) if (chunk[scanned] === 10) scannedLine++;
    return scannedLine;
  };

  let depth = 0;
  let recordLine = 1;
  let lastOffset = 0;
  const fail = (message: string, offset = lastOffset) => {
    failure ??= new ImportError(`line ${lineAt(offset)}: ${message}`);
  };

  tokenizer.onToken = (info) => {
    if (failure) return;
    lastOffset = info.offset;
    if (depth === 2) recordLine = lineAt(info.offset);
    if (info.token === TokenType.LEFT_BRACE || info.token === TokenType.LEFT_BRACKET) depth++;
    if (info.token === TokenType.RIGHT_BRACE || info.token === TokenType.RIGHT_BRACKET) depth--;
    parser.write(info);
  };
  tokenizer.onError = (err) => {
    const at = /absolute position "(\d+)"/.exec(err.message);
    fail(
      `malformed JSON (${err.message.replace(/ at chunk position.*$/, '')})`,
      at ? Number(at[1]) : lastOffset,
    );
  };
  parser.onError = (err) => fail(`malformed JSON (${err.message})`);
  parser.onValue = ({ value, key, stack }) => {
    if (failure) return;
    const array = stack[1]?.key;
    if (array !== 'products' && array !== 'priceGuides') return;
    if (kind !== undefined && kind !== array) {
      fail('a file holds either "products" or "priceGuides", not both');
      return;
    }
    kind = array;
    records++;
    pending.push({ kind: array, index: Number(key), line: recordLine, value });
  };

  const stream = createReadStream(path, { highWaterMark: 256 * 1024 });
  for await (const data of stream as AsyncIterable<Buffer>) {
    chunk = data;
    scanned = 0;
    scannedLine = linesBefore + 1;
    tokenizer.write(data);
    for (let i = 0; i < data.length; i++) if (data[i] === 10) linesBefore++;
    chunkStart += data.length;
    chunk = Buffer.alloc(0);
    if (failure) {
      stream.destroy();
      throw failure;
    }
    for (const record of pending.splice(0)) await onRecord(record);
    onBytes(data.length);
  }
  if (!parser.isEnded) {
    if (chunkStart === 0) throw new ImportError('line 1: the file is empty');
    throw new ImportError(`line ${linesBefore + 1}: unexpected end of file (the JSON is cut short)`);
  }
  tokenizer.end();
  if (failure) throw failure;
  return { kind, records };
}

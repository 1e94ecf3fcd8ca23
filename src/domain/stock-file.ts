import { formatCents } from '../format.js';
import type { ArticleView } from '../store/articles.js';
import type { DomainContext } from './context.js';
import { type StockFilter, stockPage } from '../store/stock.js';
import { badRequest, notFound } from '../errors.js';
import { findGame } from '../store/wants.js';
import { type ArticleFlag, gameRules, isLanguage } from './catalog.js';

/**
 * The stock as a CSV file (`GET /stock/file`, reference §1.6): the columns real clients parse, one
 * article per line, every value double-quoted and separated by semicolons, as the real file is.
 * Read from the database a page at a time, so the whole stock is never in memory.
 */
const BASE_COLUMNS = [
  'idArticle',
  'idProduct',
  'English Name',
  'Local Name',
  'Exp.',
  'Exp. Name',
  'Price',
  'Language',
  'Condition',
  'Foil?',
  'Signed?',
  'Playset?',
  'Altered?',
  'Comments',
  'Amount',
  'onSale',
  'idCurrency',
  'Currency Code',
];

/** Flags only some games have get a column of their own at the end, for those games only. */
const GAME_COLUMNS: Array<[ArticleFlag, string]> = [
  ['isFirstEd', 'FirstEd?'],
  ['isReverseHolo', 'Reverse Holo?'],
];

function stockCsvColumns(idGame: number): string[] {
  const flags = gameRules(idGame).flags;
  return [...BASE_COLUMNS, ...GAME_COLUMNS.filter(([flag]) => flags.includes(flag)).map(([, name]) => name)];
}

const PAGE = 1000;

const quote = (v: string | number) => `"${String(v).replace(/"/g, '""')}"`;
const mark = (v: number) => (v ? 'X' : '');

function line(a: ArticleView, extra: ArticleFlag[]): string {
  const values: Array<string | number> = [
    a.idArticle,
    a.idProduct,
    a.product.enName,
    a.product.locName,
    a.product.expansionAbbreviation ?? '',
    a.product.expansionName ?? '',
    formatCents(a.price),
    a.idLanguage,
    a.condition ?? '',
    mark(a.isFoil),
    mark(a.isSigned),
    mark(a.isPlayset),
    mark(a.isAltered),
    a.comments,
    a.count,
    a.count > 0 ? 1 : 0,
    1,
    'EUR',
    ...extra.map((flag) => mark(a[flag])),
  ];
  return `${values.map(quote).join(';')}\n`;
}

/**
 * Checked before the file starts streaming: an unknown game or language is the client's typo, and
 * an empty file would tell a stock-sync tool that the seller has nothing.
 */
export async function checkStockFileFilter(
  ctx: DomainContext,
  filter: { idGame: number; idLanguage?: number | undefined },
): Promise<void> {
  if (!(await findGame(ctx.database.db, filter.idGame))) {
    throw notFound(`There is no game ${filter.idGame}.`, {
      field: 'idGame',
      reason: 'no_such_game',
      params: { id: filter.idGame },
    });
  }
  if (filter.idLanguage !== undefined && !isLanguage(filter.idLanguage)) {
    throw badRequest(`${filter.idLanguage} is not a language id.`, {
      field: 'idLanguage',
      reason: 'unknown_language',
    });
  }
}

/** The CSV text of a seller's stock of one game, in pieces of a page each. */
export async function* stockCsv(
  ctx: DomainContext,
  idUser: number,
  filter: StockFilter & { idGame: number },
): AsyncGenerator<string> {
  const extra = GAME_COLUMNS.filter(([flag]) => gameRules(filter.idGame).flags.includes(flag)).map(
    ([flag]) => flag,
  );
  yield `${stockCsvColumns(filter.idGame).map(quote).join(';')}\n`;
  let afterId = 0;
  for (;;) {
    const page = await stockPage(ctx.database.db, idUser, { ...filter, afterId }, 0, PAGE);
    if (page.length === 0) return;
    yield page.map((a) => line(a, extra)).join('');
    if (page.length < PAGE) return;
    afterId = page[page.length - 1]!.idArticle;
  }
}

/** Most rows one uploaded stock file may carry: one bulk request's worth (spec §8). */
export const MAX_UPLOAD_ROWS = 100;

/** A row of an uploaded stock file, as the article element of `POST` or `PUT /stock` names it. */
export interface StockFileRow {
  /** 1-based line in the file, for the per-row answer. */
  line: number;
  /** Empty: a new article (POST /stock); else the article to change (PUT /stock). */
  idArticle: string;
  article: Record<string, string>;
}

/** Splits `"a";"b""c";d` lines into fields: semicolons, double quotes doubled, newlines in quotes. */
function csvRecords(text: string): Array<{ line: number; values: string[] }> {
  const out: Array<{ line: number; values: string[] }> = [];
  let values: string[] = [];
  let value = '';
  let quoted = false;
  let line = 1;
  let start = 1;
  let any = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        value += '"';
        i++;
      } else if (c === '"') quoted = false;
      else {
        if (c === '\n') line++;
        value += c;
      }
    } else if (c === '"') {
      quoted = true;
      any = true;
    } else if (c === ';') {
      values.push(value);
      value = '';
      any = true;
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      if (any || value !== '') out.push({ line: start, values: [...values, value] });
      values = [];
      value = '';
      any = false;
      line++;
      start = line;
    } else {
      value += c;
      if (c.trim() !== '') any = true;
    }
  }
  if (quoted)
    throw badRequest(`Line ${start}: a quoted value is not closed.`, {
      field: 'file',
      reason: 'file_quote_open',
      params: { line: start },
    });
  if (any || value !== '') out.push({ line: start, values: [...values, value] });
  return out;
}

const FILE_FIELDS: Array<[string, string]> = [
  ['idProduct', 'idProduct'],
  ['Price', 'price'],
  ['Language', 'idLanguage'],
  ['Condition', 'condition'],
  ['Comments', 'comments'],
  ['Amount', 'count'],
];
const FILE_FLAGS: Array<[string, ArticleFlag]> = [
  ['Foil?', 'isFoil'],
  ['Signed?', 'isSigned'],
  ['Playset?', 'isPlayset'],
  ['Altered?', 'isAltered'],
  ...GAME_COLUMNS.map(([flag, name]): [string, ArticleFlag] => [name, flag]),
];

/**
 * An uploaded stock file in the format `GET /stock/file` gives (its header line names the
 * columns; any order, unknown columns ignored): each row as the article element the API's bulk
 * writes read, so the same parsers and rules apply. `X` in a flag column is true, empty false.
 */
export function parseStockFile(text: string): StockFileRow[] {
  const records = csvRecords(text.replace(/^\uFEFF/, ''));
  const header = records.shift();
  if (!header)
    throw badRequest('The file is empty: it needs the header line of GET /stock/file.', {
      field: 'file',
      reason: 'file_empty',
    });
  const index = new Map(header.values.map((name, i) => [name.trim(), i]));
  for (const required of ['idProduct', 'Price', 'Amount']) {
    if (!index.has(required)) {
      throw badRequest(`The header line has no "${required}" column (the columns of GET /stock/file).`, {
        field: 'file',
        reason: 'file_no_column',
        params: { column: required },
      });
    }
  }
  if (records.length === 0)
    throw badRequest('The file has a header line but no article.', {
      field: 'file',
      reason: 'file_no_articles',
    });
  if (records.length > MAX_UPLOAD_ROWS) {
    throw badRequest(
      `At most ${MAX_UPLOAD_ROWS} articles per file (got ${records.length}); nothing was changed.`,
      { field: 'file', reason: 'file_too_many', params: { max: MAX_UPLOAD_ROWS, count: records.length } },
    );
  }
  const cell = (values: string[], name: string) => {
    const i = index.get(name);
    return i === undefined ? undefined : (values[i] ?? '');
  };
  return records.map(({ line, values }) => {
    const article: Record<string, string> = {};
    for (const [column, field] of FILE_FIELDS) {
      const v = cell(values, column);
      if (v !== undefined) article[field] = v;
    }
    for (const [column, flag] of FILE_FLAGS) {
      const v = cell(values, column)?.trim();
      if (v !== undefined) article[flag] = v === '' ? 'false' : /^(x|1|true|yes)$/i.test(v) ? 'true' : v;
    }
    const idArticle = (cell(values, 'idArticle') ?? '').trim();
    if (idArticle !== '') article.idArticle = idArticle;
    return { line, idArticle, article };
  });
}

import { formatCents } from '../format.js';
import type { ArticleView } from '../store/articles.js';
import type { Executor } from '../store/db.js';
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
  db: Executor,
  filter: { idGame: number; idLanguage?: number | undefined },
): Promise<void> {
  if (!(await findGame(db, filter.idGame))) {
    throw notFound(`There is no game ${filter.idGame}.`, { field: 'idGame' });
  }
  if (filter.idLanguage !== undefined && !isLanguage(filter.idLanguage)) {
    throw badRequest(`${filter.idLanguage} is not a language id.`, { field: 'idLanguage' });
  }
}

/** The CSV text of a seller's stock of one game, in pieces of a page each. */
export async function* stockCsv(
  db: Executor,
  idUser: number,
  filter: StockFilter & { idGame: number },
): AsyncGenerator<string> {
  const extra = GAME_COLUMNS.filter(([flag]) => gameRules(filter.idGame).flags.includes(flag)).map(
    ([flag]) => flag,
  );
  yield `${stockCsvColumns(filter.idGame).map(quote).join(';')}\n`;
  let afterId = 0;
  for (;;) {
    const page = await stockPage(db, idUser, { ...filter, afterId }, 0, PAGE);
    if (page.length === 0) return;
    yield page.map((a) => line(a, extra)).join('');
    if (page.length < PAGE) return;
    afterId = page[page.length - 1]!.idArticle;
  }
}

import { foldName, foldWords, prefixUpperBound } from '../domain/search-text.js';
import { sql } from 'kysely';
import { insertMany } from './bulk.js';
import type { Executor } from './db.js';
import { prepared } from './prepared.js';

/**
 * The product search index (`productSearchNames`, `productSearchWords`), kept beside the names it is
 * built from: whatever writes a product's names writes its index entries in the same transaction.
 */
export interface IndexEntry {
  idProduct: number;
  idGame: number;
  /** idLanguage → name. */
  names: Partial<Record<number, string>>;
}

/** Index rows of products not indexed yet (bulk loads of new products). */
export function indexRows(entries: readonly IndexEntry[]): { names: unknown[][]; words: unknown[][] } {
  const names: unknown[][] = [];
  const words: unknown[][] = [];
  for (const e of entries) {
    for (const [lang, name] of Object.entries(e.names)) {
      if (name === undefined) continue;
      const idLanguage = Number(lang);
      const folded = foldWords(name);
      names.push([e.idProduct, idLanguage, e.idGame, folded.join(' ')]);
      for (const word of new Set(folded)) words.push([idLanguage, word, e.idGame, e.idProduct]);
    }
  }
  return { names, words };
}

export async function insertIndexRows(db: Executor, rows: ReturnType<typeof indexRows>): Promise<void> {
  await insertMany(db, 'productSearchNames', ['idProduct', 'idLanguage', 'idGame', 'name'], rows.names);
  await insertMany(db, 'productSearchWords', ['idLanguage', 'word', 'idGame', 'idProduct'], rows.words);
}

/** (Re)indexes products: their old entries go, the given names are indexed. */
export async function reindexProducts(db: Executor, entries: readonly IndexEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const ids = entries.map((e) => e.idProduct);
  await db.deleteFrom('productSearchWords').where('idProduct', 'in', ids).execute();
  await db.deleteFrom('productSearchNames').where('idProduct', 'in', ids).execute();
  await insertIndexRows(db, indexRows(entries));
}

export interface SearchQuery {
  /** The search string as the client sent it. */
  text: string;
  exact: boolean;
  idLanguage: number;
  idGame?: number;
}

/**
 * Ids of the products whose name in `idLanguage` matches, ascending (the order the real API lists
 * found printings in). Exact: the folded name equals the folded search string. Otherwise every word
 * of the search string must start a word of the name: each word is one range of the word index
 * (covering, contiguous), and the ranges are intersected.
 */
export async function searchProducts(db: Executor, q: SearchQuery): Promise<number[]> {
  if (q.exact) {
    let query = db
      .selectFrom('productSearchNames')
      .select('idProduct')
      .where('idLanguage', '=', q.idLanguage)
      .where('name', '=', foldName(q.text));
    if (q.idGame !== undefined) query = query.where('idGame', '=', q.idGame);
    return (await query.orderBy('idProduct').execute()).map((r) => r.idProduct);
  }
  const words = [...new Set(foldWords(q.text))];
  if (words.length === 0) return [];
  const range = (word: string) => {
    let query = db
      .selectFrom('productSearchWords')
      .select('idProduct')
      .where('idLanguage', '=', q.idLanguage)
      .where('word', '>=', word)
      .where('word', '<', prefixUpperBound(word));
    if (q.idGame !== undefined) query = query.where('idGame', '=', q.idGame);
    return query;
  };
  let query = range(words[0]!);
  for (const word of words.slice(1)) query = query.intersect(range(word));
  const rows = await query.execute();
  // One word alone may start several words of a name; the intersection is already distinct.
  const ids = words.length === 1 ? [...new Set(rows.map((r) => r.idProduct))] : rows.map((r) => r.idProduct);
  return ids.sort((a, b) => a - b);
}

const searchVersion = prepared(
  (db) => db.selectFrom('catalogVersions').select('version').where('name', '=', sql.lit('productSearch')),
  [],
);

/**
 * The version of the search index, raised by a trigger in every transaction that writes it
 * (`0018_search_reads`): what a search finds can only change when it moves.
 */
export async function searchIndexVersion(db: Executor): Promise<number> {
  return Number((await searchVersion(db))[0]?.version ?? 0);
}

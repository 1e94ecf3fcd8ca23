import { sql } from 'kysely';
import { foldName, foldWords, prefixUpperBound } from '../domain/search-text.js';
import { insertMany } from './bulk.js';
import type { Executor } from './db.js';

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

export interface SearchHit {
  idProduct: number;
  /** The folded name that matched, for ordering. */
  name: string;
}

/**
 * Products whose name in `idLanguage` matches, ordered by that name then id. Exact: the folded
 * name equals the folded search string. Otherwise every word of the search string must start a
 * word of the name: the longest word selects candidates by an index range, the others filter them
 * on the folded name (`' ' || name` contains `' ' || word`).
 */
export async function searchProducts(db: Executor, q: SearchQuery): Promise<SearchHit[]> {
  if (q.exact) {
    let query = db
      .selectFrom('productSearchNames')
      .select(['idProduct', 'name'])
      .where('idLanguage', '=', q.idLanguage)
      .where('name', '=', foldName(q.text));
    if (q.idGame !== undefined) query = query.where('idGame', '=', q.idGame);
    return query.orderBy('idProduct').execute();
  }
  const words = [...new Set(foldWords(q.text))];
  if (words.length === 0) return [];
  const driver = words.reduce((a, b) => (b.length > a.length ? b : a));
  let query = db
    .selectFrom('productSearchWords as w')
    .innerJoin('productSearchNames as s', (j) =>
      j.onRef('s.idProduct', '=', 'w.idProduct').onRef('s.idLanguage', '=', 'w.idLanguage'),
    )
    .select(['s.idProduct', 's.name'])
    .where('w.idLanguage', '=', q.idLanguage)
    .where('w.word', '>=', driver)
    .where('w.word', '<', prefixUpperBound(driver));
  if (q.idGame !== undefined) query = query.where('w.idGame', '=', q.idGame);
  for (const other of words) {
    if (other === driver) continue;
    // Folded text holds only letters, digits and spaces, so LIKE's wildcards cannot appear in it.
    query = query.where(sql<string>`' ' || ${sql.ref('s.name')}`, 'like', `% ${other}%`);
  }
  const rows = await query.execute();
  const seen = new Set<number>();
  const hits: SearchHit[] = [];
  for (const r of rows) {
    if (seen.has(r.idProduct)) continue;
    seen.add(r.idProduct);
    hits.push(r);
  }
  hits.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.idProduct - b.idProduct));
  return hits;
}

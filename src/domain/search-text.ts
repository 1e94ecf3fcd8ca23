/**
 * How product names are folded for search, the same when a name is indexed and when a search
 * string is read: lower case, accents and apostrophes removed (`Urza's` → `urzas`, `Drache Ü` →
 * `drache u`), everything else that is not a letter or digit separates words. Comparing folded text
 * byte-wise then behaves like a case- and accent-insensitive collation on both databases.
 */

const LIGATURES: Record<string, string> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', đ: 'd', ł: 'l', þ: 'th' };

// Most names are plain ASCII: they skip Unicode normalization, the costly part of folding.
const PLAIN = /^[\x20-\x7e]*$/;

export function foldWords(text: string): string[] {
  if (PLAIN.test(text)) {
    return text
      .toLowerCase()
      .replace(/['`]/g, '')
      .split(/[^a-z0-9]+/)
      .filter((w) => w !== '');
  }
  const folded = text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[ßæœøđłþ]/g, (c) => LIGATURES[c] ?? c)
    .replace(/['’`´]/g, '');
  return folded.split(/[^\p{L}\p{N}]+/u).filter((w) => w !== '');
}

/** A name as stored in the index and compared by exact searches. */
export function foldName(text: string): string {
  return foldWords(text).join(' ');
}

/**
 * The smallest string greater than every string that starts with `prefix` (byte-wise, which is
 * code-point order in UTF-8): `drag` → `drah`. With it a prefix search is an index range.
 */
export function prefixUpperBound(prefix: string): string {
  const chars = Array.from(prefix);
  const last = chars.pop();
  if (last === undefined) throw new Error('empty prefix');
  return chars.join('') + String.fromCodePoint(last.codePointAt(0)! + 1);
}

/** Non-exact searches need this many characters (reference §1.3, the real API's error text). */
export const MIN_SEARCH_LENGTH = 4;

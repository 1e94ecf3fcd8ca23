/**
 * A URL as a `Location` header can carry it. HTTP allows only visible ASCII there (Node refuses
 * anything beyond Latin-1 with an exception, and Latin-1 itself is read differently by different
 * clients), so every other character is percent-encoded as UTF-8, as a browser would encode it
 * typing the address; `%XX` escapes already there are kept. A lone surrogate becomes U+FFFD.
 */
export function headerLocation(url: string): string {
  return OUTSIDE.test(url) ? url.replace(OUTSIDE_ALL, encodeOne) : url;
}

const OUTSIDE = /[^\x21-\x7e]/u;
const OUTSIDE_ALL = /[^\x21-\x7e]/gu;

function encodeOne(c: string): string {
  try {
    return encodeURIComponent(c);
  } catch {
    return '%EF%BF%BD';
  }
}

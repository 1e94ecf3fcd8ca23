/**
 * The UTF-8 bytes of an answer's text. Node encodes a string of one-byte characters (Latin-1, as
 * the XML and JSON of a page of orders or offers nearly always are) character by character, about
 * sixteen instructions a byte, after counting its UTF-8 length in another pass: for a page of 100
 * orders (370 KB) that was a sixth of the request. Such a text is copied as Latin-1 instead (one
 * byte per character, a memcpy); the few characters beyond ASCII in it (a street's ß, a name's é)
 * are found four bytes at a time and each written as its two UTF-8 bytes. A text with any character
 * beyond Latin-1 takes Node's own way. The bytes are the same either way.
 */
const MIN_LENGTH = 8192;
const SLACK = 256;
// V8 answers this at once for a string it stores one byte per character.
// eslint-disable-next-line no-control-regex -- every character beyond Latin-1
export const BEYOND_LATIN1 = /[^\u0000-\u00ff]/;
/** The high bit of each byte of a word: a word of ASCII has none of them. */
export const HIGH_BITS = 0x80808080 | 0;

export function utf8Bytes(text: string): Buffer {
  const n = text.length;
  if (n < MIN_LENGTH || BEYOND_LATIN1.test(text)) return Buffer.from(text, 'utf8');
  // Not from the shared pool: a buffer of its own starts on a word boundary, for the Int32Array,
  // with room to widen up to SLACK characters in place.
  const latin1 = Buffer.allocUnsafeSlow(n + SLACK);
  latin1.write(text, 0, 'latin1');
  const words = new Int32Array(latin1.buffer, latin1.byteOffset, n >> 2);
  const last = words.length - (words.length & 3);
  const at: number[] = [];
  for (let w = 0; w << 2 < n; w += 4) {
    // Four words at a time while there are four: most runs are all ASCII.
    if (w < last && ((words[w]! | words[w + 1]! | words[w + 2]! | words[w + 3]!) & HIGH_BITS) === 0) continue;
    for (let i = w << 2, end = Math.min(n, (w + 4) << 2); i < end; i++) if (latin1[i]! >= 0x80) at.push(i);
  }
  if (at.length === 0) return latin1.subarray(0, n);
  if (at.length > SLACK) return Buffer.from(text, 'utf8');
  return latin1.subarray(0, widenLatin1(latin1, at, n));
}

/**
 * Turns the Latin-1 bytes of `bytes` up to `end` into UTF-8 in place: each byte at the ascending
 * positions `wide` (those of 0x80 and above) becomes its two UTF-8 bytes. The buffer needs room for
 * `wide.length` more bytes after `end`; returns the new end.
 */
export function widenLatin1(bytes: Uint8Array, wide: readonly number[], end: number): number {
  // From the last one back, each run moves right by the bytes the characters before it gain.
  let runEnd = end;
  for (let k = wide.length; k > 0; k--) {
    const i = wide[k - 1]!;
    const c = bytes[i]!;
    bytes.copyWithin(i + 1 + k, i + 1, runEnd);
    bytes[i + k - 1] = 0xc0 | (c >> 6);
    bytes[i + k] = 0x80 | (c & 0x3f);
    runEnd = i;
  }
  return end + wide.length;
}

import { isAscii } from 'node:buffer';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { badRequest } from '../errors.js';
import { BEYOND_LATIN1, HIGH_BITS, widenLatin1 } from './utf8.js';

/**
 * A response tree is what mappers produce and both formats render: objects are elements in key
 * order, arrays are repeated elements (JSON arrays), `null` is an empty element (JSON null),
 * `undefined` is left out. Values with `toJSON` (money, timestamps) render through `toXml` in XML.
 */
export type TreeValue = unknown;
export type Tree = { [key: string]: TreeValue };

const XML_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n';

// Characters that need escaping, and characters XML 1.0 cannot carry at all (dropped: a document no
// client can parse is worse than a missing control character). Tested first, since most values are
// plain text and need neither.
// eslint-disable-next-line no-control-regex -- these are exactly the characters to find
const SPECIAL = /[&<>\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;
// eslint-disable-next-line no-control-regex -- these are exactly the characters to drop
const INVALID_XML_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

function escapeText(s: string): string {
  if (!SPECIAL.test(s)) return s;
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(INVALID_XML_CHARS, '');
}

/**
 * Marks a list that a response always carries, even empty: JSON writes `[]`, and XML, which has no
 * empty list, writes one empty element, so a client that reads the XML still finds the key (the
 * bulk answers' `notUpdatedArticles`, `failed`…). Other empty lists write nothing, as before: an
 * empty element there would read as one entity without fields.
 */
const ALWAYS_PRESENT = Symbol('alwaysPresent');

export function presentList<T>(items: T[]): T[] {
  Object.defineProperty(items, ALWAYS_PRESENT, { value: true });
  return items;
}

/**
 * A string built by concatenation is a tree of pieces, joined when it is first read whole; a text
 * used many times is joined once here (converting it to a number reads it whole), or every use
 * would walk its pieces again.
 */
function joined(text: string): string {
  void Number(text);
  return text;
}

/**
 * A subtree that one answer carries several times: the seller of many offers on a page, the
 * product they are offers of, the seller of each of a page of 100 orders (writing its 35 elements a
 * hundred times was 40% of the writer's time there). XML writes its children once and repeats the text; JSON writes the
 * tree it holds (`toJSON`), as if it stood there itself. Both formats are byte for byte what the
 * plain tree gives. Never shared between answers: the text is kept on the object.
 */
export class SharedTree {
  xml: string | undefined = undefined;
  constructor(readonly tree: Tree) {}
  toJSON(): Tree {
    return this.tree;
  }
}

/**
 * An entity whose XML a writer compiled for its schema writes (the offers of a page: a hundred
 * articles of some forty elements each, where the generic walk below spent a third of the answer's
 * time building and then flattening tens of thousands of short strings). `write` gives the
 * element's children, byte for byte what the generic walk gives for `tree`; JSON writes `tree`.
 */
export class CompiledTree<T extends object = Tree> {
  constructor(
    readonly tree: T,
    /**
     * Undefined for an entity that only `writeTo` writes: the generic walk then writes the tree
     * its `toJSON` gives (the same bytes), as where it is met outside a list (an error's answer).
     */
    readonly write: ((tree: T) => string) | undefined,
    /**
     * The same children as pieces of text and of UTF-8 bytes kept from answer to answer, for an
     * entity of an answer's list (`toXmlBuffer`), where most of its text never changes: copying the
     * bytes spares encoding them again (a found product's 1.2 kB was a sixth of the search).
     */
    readonly encoded?: (tree: T) => readonly (string | Uint8Array)[],
    /**
     * The same children written straight into the answer's bytes (`XmlWriter`), for an entity of
     * an answer's list (`toXmlBuffer`): a page of 100 orders built as one string per order was a
     * rope of some 30,000 pieces, flattened and encoded again, which with the garbage it left was
     * most of what writing it cost.
     */
    readonly writeTo?: (tree: T, out: XmlWriter) => void,
  ) {}
  toJSON(): T {
    return this.tree;
  }
}

/**
 * A list whose elements a writer compiled for their schema writes straight from the entities it
 * holds (a thread's page of messages): `write` gives an element named `name`, tags and all, byte
 * for byte what the generic walk gives for the tree `map` makes of it; JSON writes those trees.
 * The XML of the whole list is one text, encoded at once, without a tree and a text per element.
 */
export class CompiledList<T> {
  constructor(
    readonly name: string,
    readonly items: readonly T[],
    readonly map: (item: T) => unknown,
    readonly write: (item: T) => string,
    /**
     * The same elements as UTF-8 bytes, for a list whose bytes are kept from answer to answer (a
     * kept page of a thread: `toXmlBuffer` copies them instead of writing and encoding them again).
     */
    readonly encoded?: () => Uint8Array,
  ) {}
  toJSON(): unknown[] {
    return this.items.map((item) => this.map(item));
  }
}

/** An element's opening, closing and empty tags. */
type Tags = readonly [open: string, close: string, empty: string];

/**
 * Tags are built once per element name: a page of 100 orders writes about 20,000 elements, and
 * building `<name>` and `</name>` for each was a third of the writer's time (and garbage). Names
 * come from the mappers, a few hundred in all; past the bound (keys from data, say) they are built
 * each time as before.
 */
const TAGS = new Map<string, Tags>();
const MAX_TAGS = 2000;

function tagsOf(name: string): Tags {
  let tags = TAGS.get(name);
  if (tags === undefined) {
    tags = [`<${name}>`, `</${name}>`, `<${name}/>`];
    if (TAGS.size < MAX_TAGS) TAGS.set(name, tags);
  }
  return tags;
}

/**
 * One element as the generic writer writes it (nothing for `undefined`), for compiled writers'
 * fields that are not plain text.
 */
export function xmlElement(name: string, value: unknown): string {
  return writeValue(name, value);
}

/** A text as the generic writer writes it between tags, for compiled writers' string fields. */
export const xmlText = (text: string): string => escapeText(text);

function writeValue(name: string, value: unknown): string {
  if (value === undefined) return '';
  const tags = tagsOf(name);
  if (value === null) return tags[2];
  switch (typeof value) {
    case 'string':
      return value === '' ? tags[2] : tags[0] + escapeText(value) + tags[1];
    case 'number':
    case 'boolean':
      return tags[0] + value + tags[1];
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return ALWAYS_PRESENT in value ? tags[2] : '';
    let out = '';
    for (const item of value) out += writeValue(name, item);
    return out;
  }
  if (value instanceof CompiledTree)
    return value.write === undefined
      ? writeValue(name, value.toJSON())
      : tags[0] + value.write(value.tree) + tags[1];
  if (value instanceof CompiledList) {
    if (value.name !== name) return writeValue(name, value.toJSON());
    let out = '';
    for (const item of value.items) out += value.write(item);
    return out;
  }
  if (value instanceof SharedTree)
    return tags[0] + (value.xml ??= joined(writeChildren(value.tree))) + tags[1];
  const v = value as { toJSON?: () => unknown; toXml?: () => string };
  if (typeof v.toJSON === 'function') {
    const text = typeof v.toXml === 'function' ? v.toXml() : String(v.toJSON());
    return tags[0] + escapeText(text) + tags[1];
  }
  return tags[0] + writeChildren(value as Tree) + tags[1];
}

function writeChildren(tree: Tree): string {
  let out = '';
  for (const key in tree) out += writeValue(key, tree[key]);
  return out;
}

/** Renders a response tree as the API's XML document with root `response`. */
export function toXml(tree: Tree): string {
  return `${XML_HEAD}<response>${writeChildren(tree)}</response>`;
}

/**
 * Where `toXmlBuffer` writes (writing is synchronous). A short answer is written after the one
 * before into a slab and handed out as a view of bytes nothing writes again, as Node's own pool
 * does for short buffers: copying each answer out into a buffer of its own cost more than writing
 * a thread of 40 messages (9.6 kB). A full slab is left to the views of it and a new one begun.
 * An answer that outgrows half a slab (a page of 100 offers is about 170 kB, of 100 orders 370 kB)
 * moves to `large`, kept from answer to answer and grown as needed: moving such answers from slab
 * to ever larger fresh buffers cost the orders page more than a copy. An answer filling half of
 * `large` or more is handed out in it, and the next one written in a fresh buffer of the same size;
 * a smaller one is copied out.
 */
const SLAB = 1 << 16;
let slab: Buffer = Buffer.allocUnsafeSlow(SLAB);
let large: Buffer = Buffer.allocUnsafeSlow(1 << 18);
let scratch: Buffer = slab;
let scratchWords = wordsOf(scratch);
/** Where the answer being written begins (in `slab`; 0 once it moved to `large`). */
let start = 0;
/** Where the slab's next answer begins while one is written in `large`. */
let slabStart = 0;

function wordsOf(buffer: Buffer): Int32Array {
  return new Int32Array(buffer.buffer, buffer.byteOffset, buffer.length >> 2);
}

/** Makes room in `scratch` for `most` bytes in all; answers where `at` is then. */
function room(most: number, at: number): number {
  if (most <= scratch.length) return at;
  const size = most - start;
  let to: Buffer;
  if (scratch === slab && size <= SLAB >> 1) {
    to = slab = Buffer.allocUnsafeSlow(SLAB);
  } else {
    // What the slab held of this answer was never handed out: the next answer may write there.
    if (scratch === slab) slabStart = start;
    to = size <= large.length ? large : Buffer.allocUnsafeSlow(Math.max(size, large.length * 2));
    large = to;
  }
  scratch.copy(to, 0, start, at);
  scratch = to;
  scratchWords = wordsOf(to);
  at -= start;
  start = 0;
  return at;
}

/** Texts shorter than this are encoded by Node at once: too short to gain from the Latin-1 copy. */
const LATIN1_MIN = 256;
/** Where `put` found characters beyond ASCII, reused by every call. */
const wide: number[] = [];

/**
 * Writes `text` as UTF-8 into `scratch` at `at`, growing it first if it might not fit. Node encodes
 * a string of one-byte characters (an order's or an offer's XML nearly always is) character by
 * character, about sixteen instructions a byte: such a text is copied as Latin-1 instead (a
 * memcpy), and the few characters beyond ASCII in it (a street's ß) are found four bytes at a time
 * and each widened to its two UTF-8 bytes in place, as `utf8Bytes` (`src/http/utf8.ts`) does for
 * whole answers. The bytes are the same either way.
 */
function put(text: string, at: number): number {
  const n = text.length;
  // At most three bytes per UTF-16 unit.
  at = room(at + n * 3, at);
  if (n < LATIN1_MIN || BEYOND_LATIN1.test(text)) return at + scratch.write(text, at);
  scratch.write(text, at, 'latin1');
  const end = at + n;
  // Most texts are all ASCII, which Node checks many bytes an instruction (simdutf): the search
  // below, four bytes at a time, cost as much as writing the rest of a 40-message thread's list.
  if (isAscii(new Uint8Array(scratch.buffer, scratch.byteOffset + at, n))) return end;
  wide.length = 0;
  // The bytes before the first whole word and after the last one singly, the words between four at
  // a time while there are four (most runs are all ASCII).
  const first = (at + 3) >> 2;
  const last = end >> 2;
  for (let i = at; i < first << 2; i++) if (scratch[i]! >= 0x80) wide.push(i);
  for (let w = first; w < last; w += 4) {
    if (
      w + 4 <= last &&
      ((scratchWords[w]! | scratchWords[w + 1]! | scratchWords[w + 2]! | scratchWords[w + 3]!) &
        HIGH_BITS) ===
        0
    )
      continue;
    for (let i = w << 2, to = Math.min(last, w + 4) << 2; i < to; i++) if (scratch[i]! >= 0x80) wide.push(i);
  }
  for (let i = Math.max(at, last << 2); i < end; i++) if (scratch[i]! >= 0x80) wide.push(i);
  const k = wide.length;
  if (k === 0) return end;
  // Many: Node's own way, over what was copied.
  if (k > 64) return at + scratch.write(text, at);
  return widenLatin1(scratch, wide, end);
}

/** Copies `bytes` into `scratch` at `at`. */
function putBytes(bytes: Uint8Array, at: number): number {
  at = room(at + bytes.length, at);
  scratch.set(bytes, at);
  return at + bytes.length;
}

/**
 * Opening and closing tags as UTF-8 (`Uint8Array`, as all markup the writer copies), for the
 * elements of lists of compiled entities (a few names).
 */
const TAG_BYTES = new Map<string, readonly [Uint8Array, Uint8Array]>();

function tagBytesOf(name: string): readonly [Uint8Array, Uint8Array] {
  let tags = TAG_BYTES.get(name);
  if (tags === undefined) {
    const text = tagsOf(name);
    tags = [xmlBytes(text[0]), xmlBytes(text[1])];
    if (TAG_BYTES.size < MAX_TAGS) TAG_BYTES.set(name, tags);
  }
  return tags;
}

/** An element whose children come as `CompiledTree.encoded` pieces. */
function putEncoded(name: string, value: CompiledTree<object>, at: number): number {
  const tags = tagBytesOf(name);
  at = putBytes(tags[0], at);
  for (const piece of value.encoded!(value.tree))
    at = typeof piece === 'string' ? put(piece, at) : putBytes(piece, at);
  return putBytes(tags[1], at);
}

/** Counts the answers `toXmlBuffer` writes, so that what one answer remembers is not another's. */
let answers = 0;

/**
 * Characters written as they are (1) or not (0: escaped, or dropped as XML cannot carry them),
 * by code below 0x80, as `escapeText` decides.
 */
const PLAIN = new Uint8Array(0x80);
for (let c = 0x20; c < 0x80; c++) PLAIN[c] = 1;
PLAIN[0x09] = PLAIN[0x0a] = PLAIN[0x0d] = 1;
PLAIN[0x26] = PLAIN[0x3c] = PLAIN[0x3e] = 0;

/** Texts longer than this are written by Node (`put`), which copies them at once. */
const LONG_TEXT = 128;

/** A text's UTF-8 bytes, for the markup a compiled writer writes as it is (`XmlWriter.bytes`). */
export const xmlBytes = (markup: string): Uint8Array => new Uint8Array(Buffer.from(markup, 'utf8'));

/**
 * Writes the XML of a compiled entity straight into the answer's bytes: its markup as bytes
 * encoded once, its values character by character, escaped as they go. No string is built for
 * the entity, and nothing is left for the garbage collector. Byte for byte what encoding the
 * generic writer's text gives (`order.test.ts` compares them).
 */
export class XmlWriter {
  /** The buffer written (`scratch`) and where in it. */
  buf: Buffer = scratch;
  at = 0;

  /** Makes room for `n` more bytes. */
  private grow(n: number): void {
    this.at = room(this.at + n, this.at);
    this.buf = scratch;
  }

  /** Markup encoded beforehand (`xmlBytes`). */
  bytes(b: Uint8Array): void {
    const n = b.length;
    if (this.at + n > this.buf.length) this.grow(n);
    this.buf.set(b, this.at);
    this.at += n;
  }

  /** Text that is XML already (digits, a timestamp, markup made by a string writer). */
  markup(s: string): void {
    const n = s.length;
    if (n > LONG_TEXT) {
      this.at = put(s, this.at);
      this.buf = scratch;
      return;
    }
    if (this.at + n > this.buf.length) this.grow(n);
    const buf = this.buf;
    let at = this.at;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) {
        // Node encodes the rest, beyond ASCII.
        this.at = put(s.slice(i), at);
        this.buf = scratch;
        return;
      }
      buf[at++] = c;
    }
    this.at = at;
  }

  /** An element of text: `open`, the text escaped as `escapeText` escapes it, `close`. */
  text(open: Uint8Array, s: string, close: Uint8Array): void {
    const n = s.length;
    if (n > LONG_TEXT) {
      this.bytes(open);
      this.at = put(escapeText(s), this.at);
      this.buf = scratch;
      this.bytes(close);
      return;
    }
    // Five bytes for one character at most (`&amp;`).
    const most = open.length + n * 5 + close.length;
    if (this.at + most > this.buf.length) this.grow(most);
    const buf = this.buf;
    const begin = this.at;
    buf.set(open, begin);
    let at = begin + open.length;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x80) {
        if (PLAIN[c] === 1) {
          buf[at++] = c;
        } else if (c === 0x26) {
          buf[at] = 0x26;
          buf[at + 1] = 0x61;
          buf[at + 2] = 0x6d;
          buf[at + 3] = 0x70;
          buf[at + 4] = 0x3b;
          at += 5;
        } else if (c === 0x3c || c === 0x3e) {
          buf[at] = 0x26;
          buf[at + 1] = c === 0x3c ? 0x6c : 0x67;
          buf[at + 2] = 0x74;
          buf[at + 3] = 0x3b;
          at += 4;
        }
        // Anything else below 0x20 is dropped.
      } else if (c < 0x800) {
        buf[at] = 0xc0 | (c >> 6);
        buf[at + 1] = 0x80 | (c & 0x3f);
        at += 2;
      } else if (c >= 0xd800 && c <= 0xdfff) {
        // Surrogates (pairs, or lone ones written as U+FFFD) the way `escapeText` and Node do,
        // dropped characters between them included: the whole text again.
        this.at = put(escapeText(s), begin + open.length);
        this.buf = scratch;
        this.bytes(close);
        return;
      } else if (c < 0xfffe) {
        buf[at] = 0xe0 | (c >> 12);
        buf[at + 1] = 0x80 | ((c >> 6) & 0x3f);
        buf[at + 2] = 0x80 | (c & 0x3f);
        at += 3;
      }
      // U+FFFE and U+FFFF are dropped.
    }
    buf.set(close, at);
    this.at = at + close.length;
  }

  /** A number as `String(n)` writes it: an integer's digits without a string. */
  number(n: number): void {
    if (!(n >= 0 && n <= 0x7fffffff && (n | 0) === n)) {
      this.markup(String(n));
      return;
    }
    let digits = 1;
    for (let t = n; t >= 10; t = (t / 10) | 0) digits++;
    if (this.at + digits > this.buf.length) this.grow(digits);
    const buf = this.buf;
    const at = this.at;
    for (let k = at + digits - 1, v = n; k >= at; k--, v = (v / 10) | 0) buf[k] = 0x30 + (v % 10);
    this.at = at + digits;
  }

  /** An element of a number: `open`, `number(n)`, `close`. */
  numberIn(open: Uint8Array, n: number, close: Uint8Array): void {
    if (!(n >= 0 && n <= 0x7fffffff && (n | 0) === n)) {
      this.bytes(open);
      this.markup(String(n));
      this.bytes(close);
      return;
    }
    let digits = 1;
    for (let t = n; t >= 10; t = (t / 10) | 0) digits++;
    const most = open.length + digits + close.length;
    if (this.at + most > this.buf.length) this.grow(most);
    const buf = this.buf;
    let at = this.at;
    buf.set(open, at);
    at += open.length;
    for (let k = at + digits - 1, v = n; k >= at; k--, v = (v / 10) | 0) buf[k] = 0x30 + (v % 10);
    at += digits;
    buf.set(close, at);
    this.at = at + close.length;
  }

  /**
   * An element of an amount of cents from 0 to 2^31 - 1: `open`, the euros' digits, a point, two
   * digits, `close`, as `formatCents` writes it (one call instead of five, two of them to copy a
   * point: a page of 100 offers writes 200 prices).
   */
  centsIn(open: Uint8Array, cents: number, close: Uint8Array): void {
    const euros = Math.floor(cents / 100);
    const rest = cents % 100;
    let digits = 1;
    for (let t = euros; t >= 10; t = (t / 10) | 0) digits++;
    const most = open.length + digits + 3 + close.length;
    if (this.at + most > this.buf.length) this.grow(most);
    const buf = this.buf;
    let at = this.at;
    buf.set(open, at);
    at += open.length;
    for (let k = at + digits - 1, v = euros; k >= at; k--, v = (v / 10) | 0) buf[k] = 0x30 + (v % 10);
    at += digits;
    buf[at] = 0x2e; /* . */
    buf[at + 1] = 0x30 + ((rest / 10) | 0);
    buf[at + 2] = 0x30 + (rest % 10);
    at += 3;
    buf.set(close, at);
    this.at = at + close.length;
  }

  /** Where the answer has come to: with `again`, the bytes written since are written again. */
  mark(): number {
    return this.at - start;
  }

  /** Writes again the bytes this answer has between two of its marks. */
  again(from: number, to: number): void {
    const n = to - from;
    if (this.at + n > this.buf.length) this.grow(n);
    this.buf.copyWithin(this.at, start + from, start + to);
    this.at += n;
  }

  /** The answer being written (marks are its own). */
  get answer(): number {
    return answers;
  }
}

const writer = new XmlWriter();

/** An element whose children its compiled writer writes (`CompiledTree.writeTo`). */
function putWritten(name: string, value: CompiledTree<object>, at: number): number {
  const tags = tagBytesOf(name);
  writer.buf = scratch;
  writer.at = at;
  writer.bytes(tags[0]);
  value.writeTo!(value.tree, writer);
  writer.bytes(tags[1]);
  return writer.at;
}

/**
 * `toXml`'s document as UTF-8 bytes, the same bytes: each element of the response (each entity of
 * a list) is encoded as soon as it is written. Built as one string, a page of offers was a rope of
 * tens of thousands of pieces that sending flattened into one 170 kB string and then encoded again
 * (a sixth of the answer's time); a short string is flattened and encoded while it is still fresh.
 */
export function toXmlBuffer(tree: Tree): Buffer {
  answers++;
  let at = put(`${XML_HEAD}<response>`, start);
  for (const key in tree) {
    const value = tree[key];
    if (Array.isArray(value) && value.length > 0) {
      for (const item of value)
        at =
          item instanceof CompiledTree && item.writeTo !== undefined
            ? putWritten(key, item, at)
            : item instanceof CompiledTree && item.encoded !== undefined
              ? putEncoded(key, item, at)
              : put(writeValue(key, item), at);
    } else if (value instanceof CompiledTree && value.encoded !== undefined) {
      at = putEncoded(key, value, at);
    } else if (value instanceof CompiledList && value.encoded !== undefined && value.name === key) {
      at = putBytes(value.encoded(), at);
    } else {
      at = put(writeValue(key, value), at);
    }
  }
  at = put('</response>', at);
  if (scratch === slab) {
    const answer = slab.subarray(start, at);
    start = at;
    return answer;
  }
  let answer: Buffer;
  if (at >= large.length >> 1) {
    // A copy into a fresh buffer (`Buffer.from`, zeroed first) was a tenth of a page of 100 offers
    // in a CPU profile; a buffer from `allocUnsafeSlow` is not zeroed.
    answer = large.subarray(0, at);
    large = Buffer.allocUnsafeSlow(large.length);
  } else {
    answer = Buffer.allocUnsafeSlow(at);
    large.copy(answer, 0, 0, at);
  }
  scratch = slab;
  scratchWords = wordsOf(slab);
  start = slabStart;
  return answer;
}

// ---------------------------------------------------------------------------------------------
// Reading request bodies

/** A parsed request body: element name → string, nested object, or array when repeated. */
export type XmlNode = string | XmlObject | XmlNode[];
export interface XmlObject {
  [key: string]: XmlNode;
}

const MAX_DEPTH = 32;

const parser = new XMLParser({
  ignoreAttributes: true,
  // Strings stay strings: the routes decide what is a number, so "007" or "1e3" cannot slip through.
  parseTagValue: false,
  trimValues: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  // Entity processing stays on, or `&amp;` would arrive undecoded; DOCTYPE is refused before this.
  processEntities: true,
  htmlEntities: true,
});

/** Element nesting depth, scanned before parsing so a hostile document cannot exhaust the stack. */
function depthOf(text: string): number {
  let depth = 0;
  let max = 0;
  let i = text.indexOf('<');
  while (i !== -1) {
    const next = text.charCodeAt(i + 1);
    if (next === 47 /* / */) {
      depth--;
    } else if (next === 33 /* ! */ || next === 63 /* ? */) {
      // comment, CDATA or processing instruction: no depth change
    } else {
      const end = text.indexOf('>', i);
      if (end === -1) break;
      if (text.charCodeAt(end - 1) !== 47) {
        depth++;
        if (depth > max) max = depth;
      }
      i = end;
    }
    i = text.indexOf('<', i + 1);
  }
  return max;
}

/**
 * Parses an XML request body and returns the content of its `request` root element. Throws a 400
 * ApiError for anything else: malformed XML, another root, DOCTYPE/ENTITY declarations (entity
 * expansion attacks), or nesting deeper than any real request needs.
 */
export function parseRequestXml(text: string): XmlObject {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  return parsePlainRequest(body) ?? parseAnyRequest(body);
}

/** `parseRequestXml` the full way, for any XML (the tests compare the plain way with it). */
export function parseAnyRequest(body: string): XmlObject {
  if (/<!DOCTYPE|<!ENTITY/i.test(body)) {
    throw badRequest('DOCTYPE and ENTITY declarations are not accepted in request bodies.');
  }
  if (depthOf(body) > MAX_DEPTH) {
    throw badRequest(`The request body is nested deeper than ${MAX_DEPTH} elements.`);
  }
  const valid = XMLValidator.validate(body);
  if (valid !== true) {
    throw badRequest(`Malformed XML in the request body: ${valid.err.msg} (line ${valid.err.line}).`);
  }
  let doc: Record<string, unknown>;
  try {
    doc = parser.parse(body) as Record<string, unknown>;
  } catch (err) {
    throw badRequest(`Malformed XML in the request body: ${(err as Error).message}`);
  }
  const roots = Object.keys(doc);
  if (roots.length !== 1 || roots[0] !== 'request' || Array.isArray(doc.request)) {
    throw badRequest('The request body must have exactly one root element, named "request".');
  }
  const content = doc.request;
  if (typeof content === 'string') {
    if (content.trim() !== '') throw badRequest('The "request" element must contain elements, not text.');
    return {};
  }
  return content as XmlObject;
}

const DECLARATION =
  /^<\?xml version="1\.[0-9]"(?: encoding="[A-Za-z][A-Za-z0-9._-]*")?(?: standalone="(?:yes|no)")?\?>/;
const NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
const isSpace = (c: number) => c === 32 || c === 10 || c === 13 || c === 9;

/**
 * The request bodies tools send (a declaration, then elements and text, nothing else) read in one
 * pass: `fast-xml-parser` validating and then parsing them was an eighth of a 100-article stock
 * write. The result is the tree `parser` builds for the same text (`xml.test.ts` compares them).
 * Anything else (attributes, entities, comments, CDATA, processing instructions, mixed content,
 * names an object already has, a root other than `request`, a mistake of any kind) answers
 * undefined and goes the full way, which also words every error.
 */
export function parsePlainRequest(body: string): XmlObject | undefined {
  let i = 0;
  if (body.startsWith('<?')) {
    const declaration = DECLARATION.exec(body);
    if (!declaration) return undefined;
    i = declaration[0].length;
  }
  const n = body.length;
  while (i < n && isSpace(body.charCodeAt(i))) i++;
  if (!body.startsWith('<request', i)) return undefined;
  // Elements open on the stack: their name, and their children so far (none yet: undefined, so a
  // leaf such as `<price>` costs no object).
  const names: string[] = [];
  const objects: Array<XmlObject | undefined> = [];
  let text = '';
  let root: XmlNode | undefined;
  while (i < n) {
    const lt = body.indexOf('<', i);
    if (lt === -1) {
      if (names.length > 0) return undefined;
      for (let k = i; k < n; k++) if (!isSpace(body.charCodeAt(k))) return undefined;
      break;
    }
    const between = body.slice(i, lt);
    if (names.length === 0) {
      if (root !== undefined || between.trim() !== '') return undefined;
    } else if (between !== '') {
      if (between.includes('&') || between.includes('>')) return undefined;
      text += between;
    }
    const gt = body.indexOf('>', lt);
    if (gt === -1) return undefined;
    const closing = body.charCodeAt(lt + 1) === 47; /* / */
    const empty = !closing && body.charCodeAt(gt - 1) === 47;
    i = gt + 1;
    if (closing) {
      // The name the element opened with (checked then), compared where it stands: no text cut
      // out of the body and tested again for each of a hundred articles' closing tags.
      const name = names.pop();
      if (name === undefined || gt - lt - 2 !== name.length || !body.startsWith(name, lt + 2))
        return undefined;
      if (names.length === 0 && name !== 'request') return undefined;
      const children = objects.pop();
      const value = text.trim();
      text = '';
      if (value.includes('\r')) return undefined; // line ends an XML parser may normalize
      if (children !== undefined && value !== '') return undefined; // mixed content
      const node: XmlNode = children ?? value;
      if (names.length === 0) root = node;
      else addChild(objects, name, node);
    } else {
      const name = body.slice(lt + 1, empty ? gt - 1 : gt);
      if (!NAME.test(name) || name in Object.prototype || name === '__proto__') return undefined;
      if (names.length > 0 && text.trim() !== '') return undefined; // mixed content
      text = '';
      if (empty) {
        if (names.length === 0) {
          if (root !== undefined || name !== 'request') return undefined;
          root = '';
        } else addChild(objects, name, '');
      } else {
        if (names.length === 0 && root !== undefined) return undefined;
        if (names.length >= MAX_DEPTH) return undefined;
        names.push(name);
        objects.push(undefined);
      }
    }
  }
  if (names.length > 0 || root === undefined) return undefined;
  return typeof root === 'string' ? (root === '' ? {} : undefined) : (root as XmlObject);
}

/** Adds a child to the innermost open element, giving it its object with its first child. */
function addChild(objects: Array<XmlObject | undefined>, name: string, node: XmlNode): void {
  const top = objects.length - 1;
  let parent = objects[top];
  if (parent === undefined) {
    parent = {};
    objects[top] = parent;
  }
  const existing = parent[name];
  if (existing === undefined) parent[name] = node;
  else if (Array.isArray(existing)) existing.push(node);
  else parent[name] = [existing, node];
}

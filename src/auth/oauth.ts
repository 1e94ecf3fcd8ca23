import { createHmac, hash, timingSafeEqual } from 'node:crypto';

/**
 * OAuth 1.0 (RFC 5849) as the Marketplace API uses it: HMAC-SHA1, parameters in the Authorization
 * header, query parameters signed, body never signed. Pure functions, no I/O: the hook in
 * `authenticate.ts` looks the credentials up and calls `verifySignature`.
 *
 * No npm package verifies this correctly on the server side, hence the hundred lines here.
 */

/**
 * The header's parameters, names and values in the order sent (a name sent again keeps its place
 * and takes the new value, as in a Map): a header holds about nine, found by a scan of the names,
 * which are mostly the parser's own constants. A Map of them cost a hash table, grown twice, per
 * request.
 */
export class HeaderParams {
  /** name, value, name, value, … */
  private readonly pairs: string[] = [];

  get(name: string): string | undefined {
    const pairs = this.pairs;
    for (let i = 0; i < pairs.length; i += 2) if (pairs[i] === name) return pairs[i + 1];
    return undefined;
  }

  has(name: string): boolean {
    return this.get(name) !== undefined;
  }

  set(name: string, value: string): void {
    const pairs = this.pairs;
    for (let i = 0; i < pairs.length; i += 2) {
      if (pairs[i] === name) {
        pairs[i + 1] = value;
        return;
      }
    }
    pairs.push(name, value);
  }

  /** Each value with its name, in order, as Map's `forEach` (no entry array per parameter). */
  forEach(f: (value: string, name: string) => void): void {
    const pairs = this.pairs;
    for (let i = 0; i < pairs.length; i += 2) f(pairs[i + 1]!, pairs[i]!);
  }

  *[Symbol.iterator](): IterableIterator<[string, string]> {
    const pairs = this.pairs;
    for (let i = 0; i < pairs.length; i += 2) yield [pairs[i]!, pairs[i + 1]!];
  }
}

export interface OAuthHeader {
  /** Every `oauth_*` parameter, percent-decoded, plus `realm`. */
  params: HeaderParams;
  /** The `oauth_*` parameters but `oauth_signature`, in header order: what the signature covers. */
  oauthParams: Array<[string, string]>;
}

export class OAuthHeaderError extends Error {}

/** RFC 3986 unreserved characters stay; everything else is %XX with upper-case hex (RFC 5849 §3.6). */
export function percentEncode(s: string): string {
  if (!NEEDS_ENCODING.test(s)) return s; // the usual case for tokens, nonces and timestamps
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
const NEEDS_ENCODING = /[^A-Za-z0-9\-._~]/;

function percentDecode(s: string): string {
  if (!s.includes('%')) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return s; // a stray `%` in a raw value: keep it as sent
  }
}

/**
 * Parses `OAuth realm="…", oauth_consumer_key="…", …`. Parameters may come in any order, with or
 * without spaces after commas, quoted or not; every value is percent-decoded (RFC 5849 §3.5.1), so a
 * signature sent raw (`+/=`) or encoded (`%2B%2F%3D`) reads the same.
 *
 * The grammar is `\s*OAuth\s+` then pairs of `\s*([^\s=,]+)\s*=\s*(?:"([^"]*)"|([^\s,]*))\s*(?:,|$)`
 * (a quoted value followed by anything but a comma or the end is read unquoted, quotes included),
 * read here character by character: every request passes through it, and the regular expression's
 * match arrays and slices were a good part of its garbage. `src/auth/oauth.test.ts` compares
 * the two on generated headers.
 */
export function parseAuthorizationHeader(header: string): OAuthHeader {
  const n = header.length;
  let i = skipSpaces(header, 0);
  if (
    i + 5 >= n ||
    (header.charCodeAt(i) | 0x20) !== 0x6f || // o
    (header.charCodeAt(i + 1) | 0x20) !== 0x61 || // a
    (header.charCodeAt(i + 2) | 0x20) !== 0x75 || // u
    (header.charCodeAt(i + 3) | 0x20) !== 0x74 || // t
    (header.charCodeAt(i + 4) | 0x20) !== 0x68 || // h
    !isSpace(header.charCodeAt(i + 5))
  ) {
    throw new OAuthHeaderError('The Authorization header must use the OAuth scheme.');
  }
  i = skipSpaces(header, i + 5);
  const params = new HeaderParams();
  const oauthParams: Array<[string, string]> = [];
  while (i < n) {
    const pos = i;
    i = skipSpaces(header, i);
    const nameStart = i;
    while (
      i < n &&
      !isSpace(header.charCodeAt(i)) &&
      header.charCodeAt(i) !== EQUALS &&
      header.charCodeAt(i) !== COMMA
    )
      i++;
    const nameEnd = i;
    i = skipSpaces(header, i);
    let value: string | undefined;
    if (nameEnd > nameStart && i < n && header.charCodeAt(i) === EQUALS) {
      const valueStart = skipSpaces(header, i + 1);
      // A quoted value, when a comma or the end follows its closing quote.
      if (valueStart < n && header.charCodeAt(valueStart) === QUOTE) {
        const close = header.indexOf('"', valueStart + 1);
        if (close !== -1) {
          const after = skipSpaces(header, close + 1);
          if (after === n || header.charCodeAt(after) === COMMA) {
            value = header.slice(valueStart + 1, close);
            i = after === n ? n : after + 1;
          }
        }
      }
      if (value === undefined) {
        let end = valueStart;
        while (end < n && !isSpace(header.charCodeAt(end)) && header.charCodeAt(end) !== COMMA) end++;
        const after = skipSpaces(header, end);
        if (after === n || header.charCodeAt(after) === COMMA) {
          value = header.slice(valueStart, end);
          i = after === n ? n : after + 1;
        }
      }
    }
    if (value === undefined) {
      if (skipSpaces(header, pos) === n) break;
      throw new OAuthHeaderError('The OAuth Authorization header is not a list of name="value" pairs.');
    }
    const name = knownName(header, nameStart, nameEnd) ?? percentDecode(header.slice(nameStart, nameEnd));
    const isOAuth = name.startsWith('oauth_');
    if (isOAuth && params.has(name)) {
      throw new OAuthHeaderError(`The OAuth parameter ${name} appears more than once.`);
    }
    const decoded = percentDecode(value);
    params.set(name, decoded);
    if (isOAuth && name !== 'oauth_signature') oauthParams.push([name, decoded]);
  }
  return { params, oauthParams };
}

/**
 * The header's usual names, by length: a name sent as one of them is taken as that constant
 * instead of a slice of the header, so the map stores and finds it without hashing or comparing
 * another copy, and nothing is allocated for it.
 */
const KNOWN_NAMES = new Map<number, string[]>();
for (const name of [
  'realm',
  'oauth_consumer_key',
  'oauth_token',
  'oauth_nonce',
  'oauth_timestamp',
  'oauth_signature_method',
  'oauth_signature',
  'oauth_version',
]) {
  KNOWN_NAMES.set(name.length, [...(KNOWN_NAMES.get(name.length) ?? []), name]);
}

function knownName(header: string, start: number, end: number): string | undefined {
  const candidates = KNOWN_NAMES.get(end - start);
  if (candidates === undefined) return undefined;
  for (const name of candidates) if (header.startsWith(name, start)) return name;
  return undefined;
}

const EQUALS = 0x3d;
const COMMA = 0x2c;
const QUOTE = 0x22;

/** What `\s` matches in a JavaScript regular expression (WhiteSpace and LineTerminator). */
function isSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

function skipSpaces(s: string, i: number): number {
  while (i < s.length && isSpace(s.charCodeAt(i))) i++;
  return i;
}

/** `a=1&b=x+y&b=z` → raw pairs, still encoded. */
function splitQuery(rawQuery: string): Array<[string, string]> {
  if (!rawQuery) return [];
  return rawQuery
    .split('&')
    .filter((p) => p !== '')
    .map((p) => {
      const i = p.indexOf('=');
      return i === -1 ? [p, ''] : [p.slice(0, i), p.slice(i + 1)];
    });
}

export interface SignatureInput {
  method: string;
  /** scheme://host[:port] as the client addressed it (default ports omitted). */
  origin: string;
  /** The raw request path, as sent, without the query. */
  path: string;
  /** The raw query string, without `?`. */
  rawQuery: string;
  /** oauth_* parameters from the header (realm and oauth_signature are left out here). */
  oauthParams: Array<[string, string]>;
}

/**
 * The ways a correct client may have signed the same request. The first is RFC 5849 to the letter;
 * the others cover what real client libraries do and are tried only when it fails:
 *  - a `+` in the query read as a literal plus instead of a space (clients that sign the query
 *    string as they built it with encodeURIComponent-less code);
 *  - a path signed in its decoded-then-re-encoded form;
 *  - repeated keys ordered numerically (one client family signs `sellerCountry=2&…=10` that way).
 */
export function baseStringCandidates(input: SignatureInput): string[] {
  const method = input.method.toUpperCase();
  const hasPlus = input.rawQuery.includes('+');
  const plusModes = hasPlus ? ['space', 'literal'] : ['space'];
  const paths = [input.path];
  const normalizedPath = input.path
    .split('/')
    .map((seg) => percentEncode(percentDecode(seg)))
    .join('/');
  if (normalizedPath !== input.path) paths.push(normalizedPath);

  const rawPairs = splitQuery(input.rawQuery);
  const keys = rawPairs.map(([k]) => k);
  const hasRepeats = new Set(keys).size !== keys.length;
  const sorts: Array<'rfc' | 'numeric'> = hasRepeats ? ['rfc', 'numeric'] : ['rfc'];

  const out: string[] = [];
  for (const path of paths) {
    const url = percentEncode(input.origin + path);
    for (const plus of plusModes) {
      const pairs: Array<[string, string]> = [
        ...input.oauthParams.map(([k, v]): [string, string] => [percentEncode(k), percentEncode(v)]),
        ...rawPairs.map(([k, v]): [string, string] => {
          const decode = (s: string) => percentDecode(plus === 'space' ? s.replace(/\+/g, ' ') : s);
          return [percentEncode(decode(k)), percentEncode(decode(v))];
        }),
      ];
      for (const sort of sorts) {
        const sorted = [...pairs].sort((a, b) => {
          if (a[0] !== b[0]) return a[0] < b[0] ? -1 : 1;
          if (sort === 'numeric') {
            const na = Number(a[1]);
            const nb = Number(b[1]);
            if (!Number.isNaN(na) && !Number.isNaN(nb) && na !== nb) return na - nb;
          }
          return a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0;
        });
        const paramString = sorted.map(([k, v]) => `${k}=${v}`).join('&');
        const base = `${method}&${url}&${percentEncode(paramString)}`;
        if (!out.includes(base)) out.push(base);
      }
    }
  }
  return out;
}

export function signingKey(appSecret: string, tokenSecret: string): string {
  return `${percentEncode(appSecret)}&${percentEncode(tokenSecret)}`;
}

export function sign(baseString: string, key: string): string {
  return createHmac('sha1', key).update(baseString).digest('base64');
}

export interface VerifyResult {
  ok: boolean;
  /** The RFC 5849 base string: what the sandbox shows a client developer on failure. */
  canonicalBaseString: string;
}

/**
 * An HMAC-SHA1 key made ready once (RFC 2104): the key's blocks XORed with the inner and outer pads.
 * A signature then costs two one-shot SHA-1 hashes, where `createHmac` built a stream object per
 * request and, for an `appSecret&tokenSecret` longer than SHA-1's 64-byte block, hashed the key
 * again each time. The same digest as `createHmac('sha1', key)`: the key is read as UTF-8 there too.
 */
export class SigningKey {
  /** Key ⊕ ipad. */
  readonly innerPad: Buffer;
  /** Key ⊕ opad, followed by room for the inner digest. */
  readonly outer: Buffer;

  constructor(key: string) {
    const bytes = Buffer.from(key, 'utf8');
    const k = bytes.length > SHA1_BLOCK ? hash('sha1', bytes, 'buffer') : bytes;
    this.innerPad = Buffer.alloc(SHA1_BLOCK, 0x36);
    this.outer = Buffer.alloc(SHA1_BLOCK + SHA1_LENGTH);
    this.outer.fill(0x5c, 0, SHA1_BLOCK);
    for (let i = 0; i < k.length; i++) {
      this.innerPad[i]! ^= k[i]!;
      this.outer[i]! ^= k[i]!;
    }
  }

  /** The base64 HMAC-SHA1 of `text` (read as UTF-8, as `Hmac.update` reads a string). */
  sign(text: string): string {
    // Synchronous from the write to the last hash, so one buffer serves every call.
    if (SCRATCH.length < SHA1_BLOCK + text.length * 3) {
      SCRATCH = Buffer.alloc(SHA1_BLOCK + text.length * 3);
    }
    this.innerPad.copy(SCRATCH, 0);
    const end = SHA1_BLOCK + SCRATCH.write(text, SHA1_BLOCK, 'utf8');
    // The inner digest as a `binary` (Latin-1) string, a byte per character: a Buffer would be a new
    // ArrayBuffer and its backing store per call.
    this.outer.write(hash('sha1', SCRATCH.subarray(0, end), 'binary'), SHA1_BLOCK, 'latin1');
    return hash('sha1', this.outer, 'base64');
  }
}
const SHA1_BLOCK = 64;
const SHA1_LENGTH = 20;
/** The inner hash's input (key block, then the base string), grown when a base string needs it. */
let SCRATCH = Buffer.alloc(4096);

/** Base64 of a SHA-1 digest: 28 characters. */
const SIGNATURE_LENGTH = 28;
const SENT = Buffer.alloc(SIGNATURE_LENGTH);
const EXPECTED = Buffer.alloc(SIGNATURE_LENGTH);

/**
 * Whether `signature` is the base64 of the HMAC of `base`, compared in constant time. Comparing the
 * base64 texts is the same test as comparing the decoded bytes of a canonical base64 signature (the
 * only form accepted), and needs no decoding and re-encoding of the signature per request. The
 * caller has checked that `signature` holds base64 characters only (one byte each in Latin-1).
 */
function matches(signature: string, base: string, key: string | SigningKey): boolean {
  const expected = typeof key === 'string' ? sign(base, key) : key.sign(base);
  // Length is public (always 28 characters for SHA-1); only equal-length texts are compared.
  if (signature.length !== SIGNATURE_LENGTH || expected.length !== SIGNATURE_LENGTH) return false;
  SENT.write(signature, 0, 'latin1');
  EXPECTED.write(expected, 0, 'latin1');
  return timingSafeEqual(SENT, EXPECTED);
}

/**
 * Checks the signature against the RFC 5849 base string, and only when that fails against the
 * other forms correct clients produce (`baseStringCandidates`), each compared in constant time.
 */
export function verifySignature(
  input: SignatureInput,
  signature: string,
  /** `signingKey(appSecret, tokenSecret)`, or a SigningKey made from it once (faster per request). */
  key: string | SigningKey,
): VerifyResult {
  const canonical = canonicalBaseString(input);
  // The text as sent, compared with the canonical base64 of the expected HMAC: a signature in any
  // other form (Node's base64 decoder would skip characters it does not know) never matches. A
  // character beyond Latin-1 cannot be in base64: it is refused before it could alias one that is.
  if (!BASE64_TEXT.test(signature)) return { ok: false, canonicalBaseString: canonical };
  if (matches(signature, canonical, key)) return { ok: true, canonicalBaseString: canonical };
  for (const base of baseStringCandidates(input).slice(1)) {
    if (matches(signature, base, key)) return { ok: true, canonicalBaseString: canonical };
  }
  return { ok: false, canonicalBaseString: canonical };
}
const BASE64_TEXT = /^[A-Za-z0-9+/=]*$/;

/**
 * RFC 5849 §3.4.1.3: every `oauth_*` parameter of the header (never `realm` or `oauth_signature`)
 * and every query parameter (`+` read as a space), each name and value percent-encoded, sorted by
 * name then value. What `canonicalBaseString` joins, exposed for the signature debugger
 * (`explain.ts`), so the page shows what the server computes rather than a copy of it.
 */
export function normalizedParameters(
  input: Pick<SignatureInput, 'oauthParams' | 'rawQuery'>,
): Array<[string, string]> {
  const n = collectPairs(input);
  const pairs: Array<[string, string]> = [];
  for (let i = 0; i < n; i++) pairs.push([KEYS[i]!, VALUES[i]!]);
  clearPairs(n);
  return pairs;
}

/** The normalized parameter string: the sorted pairs joined as `k=v&k=v`. */
export function parameterString(pairs: ReadonlyArray<readonly [string, string]>): string {
  let params = '';
  for (const [k, v] of pairs) params += params === '' ? `${k}=${v}` : `&${k}=${v}`;
  return params;
}

/** The three parts joined: upper-case method, encoded base URL, encoded parameter string. */
export function joinBaseString(method: string, baseUrl: string, params: string): string {
  return `${method.toUpperCase()}&${percentEncode(baseUrl)}&${percentEncode(params)}`;
}

/**
 * The RFC 5849 base string alone: the hot path, and what the sandbox shows on failure. The same
 * string as `joinBaseString(method, url, parameterString(normalizedParameters(input)))`, built
 * without encoding the joined parameter string a second time: its pairs are already encoded, so
 * encoding it again only turns `%` into `%25`, `=` into `%3D` and `&` into `%26`.
 */
export function canonicalBaseString(input: SignatureInput): string {
  const n = collectPairs(input);
  let params = '';
  for (let i = 0; i < n; i++) {
    params += (i === 0 ? '' : '%26') + encodeEncoded(KEYS[i]!) + '%3D' + encodeEncoded(VALUES[i]!);
  }
  clearPairs(n);
  return `${input.method.toUpperCase()}&${encodedBaseUrl(input.origin + input.path)}&${params}`;
}

/**
 * The normalized parameters into `KEYS` and `VALUES`, sorted as they arrive (insertion sort: a
 * request has a handful); answers how many. Arrays kept between calls and filled synchronously,
 * so the hot path builds no pair arrays, no sorted copy and no comparator per request.
 */
function collectPairs(input: Pick<SignatureInput, 'oauthParams' | 'rawQuery'>): number {
  let n = 0;
  for (const [k, v] of input.oauthParams) n = insertPair(n, percentEncode(k), percentEncode(v));
  const rawQuery = input.rawQuery;
  if (rawQuery) {
    for (const part of rawQuery.split('&')) {
      if (part === '') continue;
      const i = part.indexOf('=');
      const k = i === -1 ? part : part.slice(0, i);
      const v = i === -1 ? '' : part.slice(i + 1);
      n = insertPair(
        n,
        percentEncode(percentDecode(plusAsSpace(k))),
        percentEncode(percentDecode(plusAsSpace(v))),
      );
    }
  }
  return n;
}

/** Lets go of the strings `collectPairs` left in the arrays. */
function clearPairs(n: number): void {
  for (let i = 0; i < n; i++) {
    KEYS[i] = '';
    VALUES[i] = '';
  }
}

/** The encoded names and values of `collectPairs`. */
const KEYS: string[] = [];
const VALUES: string[] = [];

/** Adds a pair after the first `n`, in `normalizedParameters`' order (name, then value); answers n + 1. */
function insertPair(n: number, k: string, v: string): number {
  let i = n;
  while (i > 0) {
    const pk = KEYS[i - 1]!;
    if (pk < k || (pk === k && !(VALUES[i - 1]! > v))) break;
    KEYS[i] = pk;
    VALUES[i] = VALUES[i - 1]!;
    i--;
  }
  KEYS[i] = k;
  VALUES[i] = v;
  return n + 1;
}

const plusAsSpace = (s: string) => (s.includes('+') ? s.replace(/\+/g, ' ') : s);

/** `percentEncode` of a string that is percent-encoded already (unreserved characters and `%XX`). */
const encodeEncoded = (s: string) => (s.includes('%') ? s.replaceAll('%', '%25') : s);

/**
 * Base URLs encoded, kept by URL: a client calls the same few resources over and over. Bounded
 * (cleared when full), since every id in a path makes another URL.
 */
const ENCODED_URLS = new Map<string, string>();
const MAX_ENCODED_URLS = 1000;

function encodedBaseUrl(url: string): string {
  let encoded = ENCODED_URLS.get(url);
  if (encoded === undefined) {
    encoded = percentEncode(url);
    if (ENCODED_URLS.size >= MAX_ENCODED_URLS) ENCODED_URLS.clear();
    ENCODED_URLS.set(url, encoded);
  }
  return encoded;
}

/** RFC 5849 §3.6 percent-decoding, as the header parser applies it (a stray `%` kept as sent). */
export { percentDecode };

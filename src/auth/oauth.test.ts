import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  baseStringCandidates,
  parseAuthorizationHeader,
  percentEncode,
  sign,
  signingKey,
  verifySignature,
} from './oauth.js';

// Credentials and vectors from the reference (§9), computed by three independent implementations.
const APP_SECRET = 'pChvrpp6AEOEwxBIIUBOvWcRG3X9xL4Y';
const TOKEN_SECRET = 'hc1wJAOX02pGGJK2uAv1ZOiwS7I9Tpoe';
const oauth = (nonce: string, ts: string): Array<[string, string]> => [
  ['oauth_consumer_key', 'bfaD9xOU0SXBhtBP'],
  ['oauth_token', 'lBY1xptUJ7ZJSK01x4fNwzw8kAe5b10Q'],
  ['oauth_nonce', nonce],
  ['oauth_timestamp', ts],
  ['oauth_signature_method', 'HMAC-SHA1'],
  ['oauth_version', '1.0'],
];

describe('OAuth base string and signature', () => {
  it('reproduces the reference vector for GET /ws/v1.1/account', () => {
    const [base] = baseStringCandidates({
      method: 'get',
      origin: 'https://api.cardmarket.com',
      path: '/ws/v1.1/account',
      rawQuery: '',
      oauthParams: oauth('53eb1f44909d6', '1407917892'),
    });
    assert.equal(
      base,
      'GET&https%3A%2F%2Fapi.cardmarket.com%2Fws%2Fv1.1%2Faccount&oauth_consumer_key%3DbfaD9xOU0SXBhtBP%26oauth_nonce%3D53eb1f44909d6%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D1407917892%26oauth_token%3DlBY1xptUJ7ZJSK01x4fNwzw8kAe5b10Q%26oauth_version%3D1.0',
    );
    assert.equal(sign(base!, signingKey(APP_SECRET, TOKEN_SECRET)), '163qUUcPtGFLxUzqeCIChErTbKU=');
  });

  it('signs query parameters (reference vector with start and maxResults)', () => {
    const input = {
      method: 'GET',
      origin: 'https://api.cardmarket.com',
      path: '/ws/v2.0/users/karmacrow/articles',
      rawQuery: 'start=0&maxResults=2',
      oauthParams: oauth('59689e9cf4091', '1500028572'),
    };
    const result = verifySignature(
      input,
      '88WlTXTVkHIBeWEWAqPFOkb0Jbg=',
      signingKey(APP_SECRET, TOKEN_SECRET),
    );
    assert.equal(result.ok, true);
    assert.equal(
      verifySignature(input, '88WlTXTVkHIBeWEWAqPFOkb0Jbh=', signingKey(APP_SECRET, TOKEN_SECRET)).ok,
      false,
    );
  });

  it('refuses a signature with extra characters that a lenient base64 decoder would skip', () => {
    const input = {
      method: 'GET',
      origin: 'https://api.cardmarket.com',
      path: '/ws/v2.0/users/karmacrow/articles',
      rawQuery: 'start=0&maxResults=2',
      oauthParams: oauth('59689e9cf4091', '1500028572'),
    };
    assert.equal(
      verifySignature(input, '88WlTXTVkHIBeWEWAqPFOkb0Jbg=!!', signingKey(APP_SECRET, TOKEN_SECRET)).ok,
      false,
    );
  });

  it('percent-encodes as RFC 3986 requires', () => {
    assert.equal(percentEncode("a b+c/d=e!*'()~._-"), 'a%20b%2Bc%2Fd%3De%21%2A%27%28%29~._-');
    assert.equal(percentEncode('ä'), '%C3%A4');
  });
});

describe('Authorization header parsing', () => {
  it('reads parameters in any order, with or without spaces, and percent-decodes values', () => {
    const { params } = parseAuthorizationHeader(
      'OAuth oauth_signature="ab%2Bc%2F%3D",realm="https%3A%2F%2Fx.test%2Fws",oauth_nonce=n1 ,  oauth_token=""',
    );
    assert.equal(params.get('oauth_signature'), 'ab+c/=');
    assert.equal(params.get('realm'), 'https://x.test/ws');
    assert.equal(params.get('oauth_nonce'), 'n1');
    assert.equal(params.get('oauth_token'), '');
  });

  it('keeps a raw signature with + / = as it is', () => {
    const { params } = parseAuthorizationHeader('OAuth realm="u", oauth_signature="a+b/c=="');
    assert.equal(params.get('oauth_signature'), 'a+b/c==');
  });

  it('rejects other schemes and garbage', () => {
    assert.throws(() => parseAuthorizationHeader('Basic dXNlcjpwYXNz'));
    assert.throws(() => parseAuthorizationHeader('OAuth this is not a list'));
    assert.throws(() => parseAuthorizationHeader('OAuth oauth_nonce="a", oauth_nonce="b"'));
  });
});

describe('canonical base string', () => {
  it('is the first candidate, for plain, encoded, plus and repeated queries', async () => {
    const { canonicalBaseString } = await import('./oauth.js');
    for (const rawQuery of ['', 'a=1', 'q=black+lotus&x=%20y', 'c=2&c=10&c=1', 'k', 'n=%C3%A4&m=']) {
      const input = {
        method: 'get',
        origin: 'https://x.test',
        path: '/ws/v2.0/output.json/articles/1',
        rawQuery,
        oauthParams: oauth('n', '1'),
      };
      assert.equal(canonicalBaseString(input), baseStringCandidates(input)[0], rawQuery);
    }
  });
});

/** The header grammar as the regular expression it was written as: the reference for the parser. */
function parseByRegex(header: string): Map<string, string> {
  const decode = (s: string) => {
    if (!s.includes('%')) return s;
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  };
  const m = /^\s*OAuth\s+/i.exec(header);
  if (!m) throw new Error('The Authorization header must use the OAuth scheme.');
  const rest = header.slice(m[0].length);
  const params = new Map<string, string>();
  const re = /\s*([^\s=,]+)\s*=\s*(?:"([^"]*)"|([^\s,]*))\s*(?:,|$)/y;
  let pos = 0;
  while (pos < rest.length) {
    re.lastIndex = pos;
    const part = re.exec(rest);
    if (!part) {
      if (rest.slice(pos).trim() === '') break;
      throw new Error('The OAuth Authorization header is not a list of name="value" pairs.');
    }
    const name = decode(part[1]!);
    if (params.has(name) && name.startsWith('oauth_')) {
      throw new Error(`The OAuth parameter ${name} appears more than once.`);
    }
    params.set(name, decode(part[2] ?? part[3] ?? ''));
    pos = re.lastIndex;
  }
  return params;
}

describe('OAuth header parser', () => {
  it('reads exactly what the header grammar reads, on generated headers', () => {
    const pieces = [
      'OAuth',
      'oauth',
      'OAUTH ',
      ' ',
      '  ',
      '\t',
      '\n',
      '\u00a0',
      '\u2028',
      '\ufeff',
      '\u180e',
      '=',
      '=',
      ',',
      ',',
      '"',
      '"',
      'realm',
      'oauth_nonce',
      'oauth_token',
      'x',
      'a%41',
      '%',
      '%zz',
      'é',
      '+/=',
    ];
    // A fixed generator (a linear congruential one), so a failure is the same on every run.
    let seed = 12345;
    const next = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 16) % n;
    };
    const outcome = (f: () => Iterable<[string, string]>) => {
      try {
        return [...f()];
      } catch (err) {
        return (err as Error).message;
      }
    };
    const pick = (list: readonly string[]) => list[next(list.length)]!;
    const spaces = ['', '', ' ', '  ', '\t', '\n', '\u00a0', '\u2028', '\ufeff', '\u180e'];
    const names = ['realm', 'oauth_nonce', 'oauth_token', 'x', 'a%41', '%zz', 'é', '', '"q"', 'a b'];
    const values = ['', 'v', 'a%2Bb', '%', 'x y', 'a,b', '"', '""', '+/=', 'é%C3%A9', 'k=v'];
    const seps = [',', ',', ', ', ' ,', '', ' ', 'x', '"'];
    for (let round = 0; round < 20_000; round++) {
      let header = pick(['', ' ', '\t']) + pick(['OAuth', 'oauth', 'OAUTH', 'OAuthx', 'Basic', '']);
      header += pick([' ', ' ', '  ', '\n', '']);
      const pairs = next(5);
      for (let k = 0; k < pairs; k++) {
        if (k > 0) header += pick(seps);
        header += pick(spaces) + pick(names) + pick(spaces) + (next(8) === 0 ? '' : '=') + pick(spaces);
        const value = pick(values);
        header += next(2) === 0 ? `"${value}"` : value;
        header += pick(spaces);
        if (next(6) === 0) header += pick(pieces);
      }
      if (next(4) === 0) header += pick(seps) + pick(spaces);
      assert.deepEqual(
        outcome(() => parseAuthorizationHeader(header).params),
        outcome(() => parseByRegex(header)),
        JSON.stringify(header),
      );
    }
  });

  it('reads the usual header', () => {
    const header =
      'OAuth realm="https://api.example/ws/v2.0/account", oauth_consumer_key="k", oauth_token="t",' +
      'oauth_nonce=n1 , oauth_signature="a%2Bb%3D"';
    assert.deepEqual(
      [...parseAuthorizationHeader(header).params],
      [
        ['realm', 'https://api.example/ws/v2.0/account'],
        ['oauth_consumer_key', 'k'],
        ['oauth_token', 't'],
        ['oauth_nonce', 'n1'],
        ['oauth_signature', 'a+b='],
      ],
    );
  });
});

describe('SigningKey', () => {
  it('signs as createHmac does, for short, block-sized, long and non-ASCII keys and texts', async () => {
    const { createHmac } = await import('node:crypto');
    const { SigningKey } = await import('./oauth.js');
    const keys = [
      '',
      'k&',
      'a'.repeat(64),
      'a'.repeat(65),
      `${APP_SECRET}&${TOKEN_SECRET}`,
      'é&ü€',
      '\ud800&x',
    ];
    const texts = ['', 'GET&x&y', 'é€\ud83d\ude00', '\udc00 lone', 'z'.repeat(5000), 'GET&'.repeat(300)];
    for (const key of keys) {
      const prepared = new SigningKey(key);
      for (const text of texts) {
        assert.equal(
          prepared.sign(text),
          createHmac('sha1', key).update(text).digest('base64'),
          `${key} ${text}`,
        );
        assert.equal(prepared.sign(text), sign(text, key));
      }
    }
  });
});

describe('OAuth header parser, signed parameters', () => {
  it('lists the oauth_* parameters but the signature, as the map holds them, in header order', () => {
    const { params, oauthParams } = parseAuthorizationHeader(
      'OAuth realm="r", oauth_version=1.0,oauth_signature="s%3D",  x="1", oauth_nonce="n%20n", x=2, oauth_token=""',
    );
    const fromMap = [...params].filter(([k]) => k.startsWith('oauth_') && k !== 'oauth_signature');
    assert.deepEqual(oauthParams, fromMap);
    assert.deepEqual(oauthParams, [
      ['oauth_version', '1.0'],
      ['oauth_nonce', 'n n'],
      ['oauth_token', ''],
    ]);
  });
});

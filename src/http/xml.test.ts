import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../errors.js';
import { money } from '../mappers/values.js';
import {
  parseAnyRequest,
  parsePlainRequest,
  parseRequestXml,
  presentList,
  SharedTree,
  toXml,
  toXmlBuffer,
} from './xml.js';

const repeatedEntity = <T extends object>(tree: T): T =>
  new SharedTree(tree as Record<string, unknown>) as unknown as T;

describe('XML writer', () => {
  it('writes repeated elements for arrays, empty elements for null and empty strings, and skips undefined', () => {
    const xml = toXml({ a: [1, 2], b: null, c: '', d: undefined, e: { f: true, g: false } });
    assert.equal(
      xml,
      '<?xml version="1.0" encoding="UTF-8"?>\n<response><a>1</a><a>2</a><b/><c/><e><f>true</f><g>false</g></e></response>',
    );
  });

  it('escapes text and drops characters XML cannot carry', () => {
    assert.match(toXml({ t: 'a<b & c>\u0001d' }), /<t>a&lt;b &amp; c&gt;d<\/t>/);
  });

  it('writes money with two decimals in XML and as a number in JSON', () => {
    assert.match(toXml({ price: money(150) }), /<price>1.50<\/price>/);
    assert.equal(JSON.stringify({ price: money(150) }), '{"price":1.5}');
    assert.match(toXml({ price: money(-5) }), /<price>-0.05<\/price>/);
  });

  it('writes the same bytes with its tags kept per name as with tags built each time, past the bound too', () => {
    // The writer as it was before tags were kept: the reference for every element it writes.
    const reference = (tree: Record<string, unknown>): string => {
      const value = (name: string, v: unknown): string => {
        if (v === undefined) return '';
        if (v === null) return `<${name}/>`;
        if (typeof v === 'string') return v === '' ? `<${name}/>` : `<${name}>${escape(v)}</${name}>`;
        if (typeof v === 'number' || typeof v === 'boolean') return `<${name}>${v}</${name}>`;
        if (Array.isArray(v)) return v.length === 0 ? '' : v.map((item) => value(name, item)).join('');
        const m = v as { toXml?: () => string };
        if (typeof m.toXml === 'function') return `<${name}>${m.toXml()}</${name}>`;
        return `<${name}>${children(v as Record<string, unknown>)}</${name}>`;
      };
      const children = (t: Record<string, unknown>) =>
        Object.keys(t)
          .map((k) => value(k, t[k]))
          .join('');
      const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
      return `<?xml version="1.0" encoding="UTF-8"?>\n<response>${children(tree)}</response>`;
    };
    const entity = (i: number) => ({
      idOrder: i,
      isBuyer: i % 2 === 0,
      note: i % 3 === 0 ? '' : `Note <${i}> & more`,
      evaluation: null,
      price: money(i * 7),
      shippingAddress: { name: `Name ${i}`, extra: '', street: undefined },
      article: [
        { idArticle: i, count: 1.5 },
        { idArticle: i + 1, count: 0 },
      ],
      empty: [],
    });
    const tree = { order: Array.from({ length: 50 }, (_, i) => entity(i)), links: [] };
    assert.equal(toXml(tree), reference(tree));
    // More distinct names than the writer keeps: the ones past the bound are built each time.
    const wide = Object.fromEntries(
      Array.from({ length: 2500 }, (_, i) => [`field${i}`, i % 5 ? `v${i}` : null]),
    );
    assert.equal(toXml(wide), reference(wide));
    assert.equal(toXml(wide), reference(wide));
  });

  it('writes the same UTF-8 bytes as bytes as it does as a string, however long the answer', () => {
    const shared = repeatedEntity({ name: 'Zoë & <Ünïcode> 😀 \ud800', n: 1 });
    const trees: Record<string, unknown>[] = [
      {},
      { a: presentList([]), b: [], c: null, d: '', e: undefined, f: 'é' },
      { article: [1, 2, 3].map((n) => ({ n, seller: shared, text: '😀'.repeat(n) })), total: 3 },
      // Past the first buffer (64 kB), in one element and over many.
      { big: 'ü'.repeat(200_000) },
      { item: Array.from({ length: 5_000 }, (_, n) => ({ n, text: `Straße ${n} 🂡`.repeat(10) })) },
    ];
    for (const tree of trees) {
      assert.ok(toXmlBuffer(tree).equals(Buffer.from(toXml(tree), 'utf8')));
    }
  });
  it('leaves every answer it handed out as it was, whatever it writes after', () => {
    const answers: [Buffer, string][] = [];
    for (let n = 0; n < 400; n++) {
      // Short and long answers, some past the buffer they start in, some larger than any buffer yet.
      const tree = { n, text: `${n} é 😀 `.repeat(n % 7 === 0 ? n * 40 : n) };
      answers.push([toXmlBuffer(tree), toXml(tree)]);
    }
    for (const [bytes, text] of answers) assert.ok(bytes.equals(Buffer.from(text, 'utf8')));
  });
  it('writes Latin-1 characters at every position and alignment as the UTF-8 bytes of the text', () => {
    const base = 'a'.repeat(300);
    for (let prefix = 0; prefix < 8; prefix++) {
      for (let at = 0; at < base.length; at += at < 40 || at > 260 ? 1 : 17) {
        for (const text of [
          base.slice(0, at) + 'é' + base.slice(at + 1),
          base.slice(0, at) + 'ß\u00ff' + base.slice(at + 2, 200) + '\u0080' + base.slice(201),
          'ñ'.repeat(at % 70) + base,
        ]) {
          const tree = { p: 'x'.repeat(prefix), item: [{ text }, { text: `${text}<&>` }] };
          assert.ok(toXmlBuffer(tree).equals(Buffer.from(toXml(tree), 'utf8')), `${prefix} ${at}`);
        }
      }
    }
  });
});

describe('XML writer, repeated entities', () => {
  const user = (id: number) => ({
    idUser: id,
    name: { company: null, firstName: `First <${id}>`, lastName: '' },
    registrationDate: money(id),
    links: [{ rel: 'self', href: `/users/${id}` }],
  });
  const page = (seller: object, buyers: object[]) => ({
    order: buyers.map((buyer, i) => ({
      idOrder: i,
      seller,
      buyer,
      note: `n${i}`,
      other: i === 3 ? seller : undefined,
    })),
  });

  it('writes an entity marked repeated as it writes the same entity unmarked, under every name it appears', () => {
    const buyers = Array.from({ length: 5 }, (_, i) => user(100 + i));
    const unmarked = toXml(page(user(1), buyers));
    assert.equal(toXml(page(repeatedEntity(user(1)), buyers)), unmarked);
    assert.equal(
      toXml(
        page(
          repeatedEntity(user(1)),
          buyers.map((b) => repeatedEntity(b)),
        ),
      ),
      unmarked,
    );
    assert.equal(unmarked.split('<idUser>1</idUser>').length - 1, 6);
  });

  it('keeps its text on the shared tree only: the next response, mapped again, shows a change', () => {
    // Mappers wrap a shared entity per answer (`MappedOnce`, `mapOrders`); nothing is keyed by the
    // entity itself, so a change made between two answers is written in the second.
    const seller = user(1);
    const before = toXml(page(repeatedEntity(seller), [user(2)]));
    seller.name.firstName = 'Changed';
    const after = toXml(page(repeatedEntity(seller), [user(2)]));
    assert.notEqual(after, before);
    assert.equal(after, toXml(page(user(1), [user(2)])).replace('First &lt;1&gt;', 'Changed'));
  });
});

describe('XML request parser', () => {
  const bad = (xml: string) =>
    assert.throws(
      () => parseRequestXml(xml),
      (e: unknown) => e instanceof ApiError && e.status === 400,
    );

  it('returns the content of the request element, with repeated elements as arrays', () => {
    assert.deepEqual(
      parseRequestXml('<?xml version="1.0"?><request><a>1</a><a>2</a><b>x &amp; y</b></request>'),
      {
        a: ['1', '2'],
        b: 'x & y',
      },
    );
    assert.deepEqual(parseRequestXml('<request/>'), {});
  });

  it('refuses malformed XML, another root, several roots, DOCTYPE, entities and deep nesting', () => {
    bad('<request><a></request>');
    bad('<other><a>1</a></other>');
    bad('<request/><request/>');
    bad('<!DOCTYPE request [<!ENTITY x "y">]><request>&x;</request>');
    bad('<request><!ENTITY x "y"></request>');
    bad(`<request>${'<a>'.repeat(50)}${'</a>'.repeat(50)}</request>`);
    bad('<request><constructor>1</constructor></request>');
    bad('not xml at all');
  });
});

describe('XML request parser, plain way', () => {
  const outcome = (f: () => unknown) => {
    try {
      return { value: f() };
    } catch (err) {
      return { error: (err as Error).message };
    }
  };

  it('reads the bodies tools send exactly as the full parser does, and leaves every other body to it', () => {
    // Random documents from pieces real bodies have and pieces they must not be read past.
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const names = [
      'request',
      'article',
      'idArticle',
      'price',
      'comments',
      'a',
      'b_c',
      'x.y',
      'constructor',
      'toString',
      '__proto__',
    ];
    const texts = [
      '1',
      ' 2.50 ',
      '',
      '  ',
      'a b',
      'x &amp; y',
      '&lt;',
      'caf\u00e9',
      '\u00a0nbsp\u00a0',
      'l1\r\nl2',
      'l1\nl2',
      '>',
      '<!-- c -->',
      '<![CDATA[z]]>',
      '&#65;',
      '&nbsp;',
    ];
    let hostile = true;
    const element = (depth: number): string => {
      const name = names[1 + random(hostile ? names.length - 1 : 6)]!;
      const r = hostile ? random(10) : [0, 2, 6][random(3)]!;
      if (r === 0) return `<${name}/>`;
      if (r === 1) return `<${name} />`;
      if (r === 2 && depth < 4) {
        const kids = Array.from({ length: random(4) }, () => element(depth + 1)).join(
          random(2) ? '\n  ' : '',
        );
        return `<${name}>${kids}</${name}>`;
      }
      if (r === 3) return `<${name}>${texts[random(texts.length)]}<b>1</b></${name}>`;
      if (r === 4) return `<${name} x="1">1</${name}>`;
      if (r === 5) return `<${name}>1</${names[random(names.length)]}>`;
      return `<${name}>${texts[random(hostile ? texts.length : 5)]}</${name}>`;
    };
    const heads = [
      '',
      '<?xml version="1.0" encoding="UTF-8"?>',
      '<?xml version="1.0"?>\n',
      "<?xml version='1.0'?>",
      '<?xml version="2.0"?>',
      ' ',
      '<?pi x?>',
      '<!-- c -->',
    ];
    const tails = ['', '\n', ' x', '<request/>', '<?pi?>'];
    let plain = 0;
    for (let k = 0; k < 4000; k++) {
      hostile = k < 3000;
      const root = hostile && random(8) === 0 ? names[random(names.length)]! : 'request';
      const kids = Array.from({ length: random(5) }, () => element(1)).join(random(2) ? '\r\n' : '');
      const body = `${heads[random(hostile ? heads.length : 3)]}${random(6) === 0 ? `<${root}/>` : `<${root}>${kids}</${root}>`}${random(4) === 0 ? tails[random(hostile ? tails.length : 2)] : ''}`;
      const full = outcome(() => parseAnyRequest(body));
      const fast = parsePlainRequest(body);
      if (!hostile) assert.ok(fast, body);
      if (fast) {
        plain++;
        assert.deepEqual({ value: fast }, full, body);
      }
      assert.deepEqual(
        outcome(() => parseRequestXml(body)),
        full,
        body,
      );
    }
    assert.ok(plain > 1000, `the plain way read ${plain} of 4000`);
    const deep = `<request>${'<a>'.repeat(31)}1${'</a>'.repeat(31)}</request>`;
    assert.deepEqual(parsePlainRequest(deep), parseAnyRequest(deep));
    assert.equal(parsePlainRequest(`<request>${'<a>'.repeat(32)}1${'</a>'.repeat(32)}</request>`), undefined);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../errors.js';
import { money } from '../mappers/values.js';
import { parseRequestXml, repeatedEntity, toXml } from './xml.js';

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

  it('writes it again in the next response (nothing is kept between two documents)', () => {
    const seller = repeatedEntity(user(1));
    const before = toXml(page(seller, [user(2)]));
    seller.name.firstName = 'Changed';
    const after = toXml(page(seller, [user(2)]));
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

import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ApiClient, createTestApp, xmlRequest } from './helpers.js';
import { buildWorld, type World } from './conformance-world.js';

/**
 * The OpenAPI document promises what the server refuses (docs/api.md, "What the OpenAPI document
 * promises"): every request below is derived from the served document, not written by hand. For
 * each operation, each declared bound of a parameter or a request body's element (an integer's
 * minimum and maximum and one past each, a string one past its maxLength, a value its pattern or
 * enum refuses, a value of the wrong type, a list one item over maxItems) and each required
 * parameter or element left out: what the document admits is answered with anything but 400 (and
 * never 5xx), what it refuses with 400. Every path also answers a method it does not take (QUERY,
 * an unknown token) with 405 and `Allow`, before any body is read.
 */

type Schema = Record<string, any>;
interface Parameter {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  schema: Schema;
}
interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { required: boolean; content: Record<string, { schema: Schema }> };
  'x-app-kinds': string[];
}

/** One request derived from the document, and what the document says of it. */
interface Case {
  what: string;
  path: Record<string, string>;
  query: Array<[string, string]>;
  body: string | undefined;
  admitted: boolean;
  /** A path segment outside its enum: a path that names no resource may answer 404 instead. */
  pathEnum?: boolean;
  /** An item of a list: it may fail on its own (`failed`, `success` false) rather than refuse the request. */
  itemLevel?: boolean;
}

/**
 * The 400s (by `internal_error_code`) an admitted value may still get, for what no schema can say:
 * an article id that is not in the caller's stock (the live API answers 400 there, reference §1.3).
 */
const ON_OTHER_GROUNDS = ['not_in_stock'];

const MAX_ID = 2_147_483_647;

describe('the OpenAPI document and the server agree on every bound', () => {
  let world: World;
  let doc: any;
  let thirdParty: ApiClient;
  let appOnly: ApiClient;
  /** A real value for each path parameter, so a request gets past lookups to its other rules. */
  let pathValues: Record<string, string>;

  before(async () => {
    world = await buildWorld('sqlite');
    const res = await world.server.app.inject({
      method: 'GET',
      url: '/ws/v2.0/openapi.json',
      headers: { host: 'api.cardbazaar.test' },
    });
    assert.equal(res.statusCode, 200);
    doc = JSON.parse(res.body);
    // The sandbox control API (`/_cardbazaar/`, its own server and bearer token, JSON) is no part of
    // the API these requests are derived for: test/control-api.test.ts checks it over HTTP.
    for (const [template, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(ops))
        if (op.tags?.includes('Sandbox control')) delete ops[method];
      if (Object.keys(ops).length === 0) delete doc.paths[template];
    }
    const cred = await createTestApp(world.server, world.seller.user, 'thirdParty');
    thirdParty = new ApiClient(world.server, cred);
    appOnly = new ApiClient(world.server, { ...cred, accessToken: '', accessTokenSecret: '' });
    const expansion = await world.server.services.database.db
      .selectFrom('products')
      .select('idExpansion')
      .where('idProduct', '=', world.magic.idProduct)
      .executeTakeFirstOrThrow();
    const list = await world.buyer.api.post(
      '/wantslist',
      xmlRequest('<wantslist><idGame>1</idGame><name>Boundaries</name></wantslist>'),
      { json: true },
    );
    assert.equal(list.status, 200, list.text);
    pathValues = {
      idWantslist: String(list.json.wantslist[0].idWantslist),
      idProduct: String(world.magic.idProduct),
      idMetaproduct: String(world.idMetaproduct),
      idArticle: String(world.offers.magic.idArticle),
      idOtherUser: String(world.seller.user.idUser),
      idUser: world.seller.user.username,
      idGame: '1',
      idExpansion: String(expansion.idExpansion ?? 1),
      name: 'Conformance',
      actor: 'seller',
      state: 'paid',
      start: '1',
      lang: 'en',
      appToken: cred.appToken,
    };
  });
  after(async () => world.server.close());

  const resolve = (schema: Schema): Schema => {
    let s = schema;
    while (s?.$ref) s = doc.components.schemas[String(s.$ref).split('/').pop()!];
    return s;
  };

  /** A value the schema admits, as text (the server reads text from URLs and XML alike). */
  function sample(schema: Schema, name: string): string {
    const s = resolve(schema);
    if (s.example !== undefined) return String(s.example);
    if (s.enum) return String(s.enum[0]);
    if (s.type === 'integer') return pathValues[name] ?? String(Math.max(s.minimum ?? 1, 1));
    if (s.type === 'boolean') return 'false';
    if (s.pattern) {
      const found = [
        'aaaaaaaaaaaaaaaaaaaaaaaa',
        'Conformance',
        'DE89370400440532013000',
        'DEUTDEFF',
        '1.00',
        '+49 30 1234567',
      ].find((c) => new RegExp(s.pattern, 'u').test(c));
      if (found) return found;
    }
    return pathValues[name] ?? 'Conformance';
  }

  /** A string the pattern refuses, or undefined. */
  function mismatch(pattern: string, inPath: boolean): string | undefined {
    const re = new RegExp(pattern, 'u');
    return [' ', '!', 'zz', '~~~~', '0'.repeat(300), ...(inPath ? [] : [''])].find((c) => !re.test(c));
  }

  /** Out-of-bound (false) and in-bound (true) values of one schema. */
  function bounds(schema: Schema, inPath: boolean): Array<[string, string, boolean]> {
    const s = resolve(schema);
    const out: Array<[string, string, boolean]> = [];
    if (s.type === 'integer' && s.enum) {
      out.push([`enum ${s.enum[0]}`, String(s.enum[0]), true]);
      out.push([`enum ${s.enum.at(-1)}`, String(s.enum.at(-1)), true]);
      out.push(['outside the enum', String(Math.max(...s.enum) + 1), false]);
    } else if (s.type === 'integer') {
      if (s.minimum !== undefined) {
        out.push([`minimum ${s.minimum}`, String(s.minimum), true]);
        out.push([`minimum - 1`, String(s.minimum - 1), false]);
      }
      if (s.maximum !== undefined) {
        out.push([`maximum ${s.maximum}`, String(s.maximum), true]);
        out.push([`maximum + 1`, String(s.maximum + 1), false]);
      }
      out.push(['not an integer', '1.5x', false]);
    }
    if (s.type === 'boolean') out.push(['not a boolean', 'maybe', false]);
    if (s.type === 'string') {
      if (s.enum) out.push(['outside the enum', 'notInTheEnum', false]);
      if (s.maxLength !== undefined)
        out.push([`over maxLength ${s.maxLength}`, 'x'.repeat(s.maxLength + 1), false]);
      if (s.pattern) {
        const bad = mismatch(s.pattern, inPath);
        if (bad !== undefined) out.push([`against the pattern ${s.pattern}`, bad, false]);
      }
      // What the document admits of a free string is admitted: a word, and a long one (a bound or
      // a format the server checks but the document does not name shows up here).
      if (!s.enum && !s.pattern && !s.format && !inPath) {
        out.push(['a word', 'Conformance', true]);
        const long = Math.min(s.maxLength ?? 2000, 2000);
        if (long >= 1 && long > (s.minLength ?? 0)) out.push([`${long} characters`, 'x'.repeat(long), true]);
      }
    }
    return out;
  }

  /** The request body's XML from element values (a list repeats its element). */
  function xml(elements: Record<string, string | string[] | Array<Record<string, string>>>): string {
    const el = (name: string, v: string) =>
      `<${name}>${v.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</${name}>`;
    let inner = '';
    for (const [name, value] of Object.entries(elements)) {
      if (!Array.isArray(value)) inner += el(name, value);
      else
        for (const v of value)
          inner +=
            typeof v === 'string'
              ? el(name, v)
              : `<${name}>${Object.entries(v)
                  .map(([k, x]) => el(k, x))
                  .join('')}</${name}>`;
    }
    return xmlRequest(inner);
  }

  /**
   * A body with admitted values: every element that holds a value (an optional one too: a rule
   * between elements, such as a comment the grades require, is then kept), and one item of each
   * required list.
   */
  function baseBody(schema: Schema) {
    const s = resolve(schema);
    const elements: Record<string, any> = {};
    for (const [name, prop] of Object.entries((s.properties ?? {}) as Record<string, Schema>)) {
      const p = resolve(prop);
      if (p.type === 'array' || p.type === 'object') continue;
      elements[name] = sample(p, name);
    }
    for (const name of s.required ?? []) {
      const p = resolve(s.properties[name]);
      if (p.type === 'array') {
        const item = resolve(p.items);
        if (item.type === 'object') {
          const one: Record<string, string> = {};
          for (const n of item.required ?? []) one[n] = sample(item.properties[n], n);
          elements[name] = [one];
        } else elements[name] = [sample(item, name)];
      } else elements[name] = sample(p, name);
    }
    return elements;
  }

  function cases(op: Operation): Case[] {
    const params = op.parameters ?? [];
    const basePath = Object.fromEntries(
      params.filter((p) => p.in === 'path').map((p) => [p.name, sample(p.schema, p.name)]),
    );
    // One of the parameters `x-required-one-of` names stands for the rest (a boolean as `true`).
    const oneOf: string[] = (op as any)['x-required-one-of'] ?? [];
    const baseQuery: Array<[string, string]> = params
      .filter((p) => p.in === 'query' && (p.required || p.name === oneOf[0]))
      .map((p) => [p.name, resolve(p.schema).type === 'boolean' ? 'true' : sample(p.schema, p.name)]);
    const bodySchema = op.requestBody?.content['application/xml']?.schema;
    const body = bodySchema ? baseBody(bodySchema) : undefined;
    const baseXml = body ? xml(body) : undefined;
    const out: Case[] = [];
    for (const p of params) {
      const schema = resolve(p.schema);
      const one = schema.type === 'array' ? resolve(schema.items) : schema;
      for (const [what, value, admitted] of bounds(one, p.in === 'path')) {
        const c: Case = {
          what: `${p.in} ${p.name}: ${what}`,
          path: { ...basePath },
          query: baseQuery.filter(([n]) => n !== p.name),
          body: baseXml,
          admitted,
        };
        if (p.in === 'path') c.path[p.name] = value;
        if (p.in === 'path' && what === 'outside the enum') c.pathEnum = true;
        else c.query.push([p.name, value]);
        out.push(c);
      }
      if (p.in === 'query' && p.required)
        out.push({
          what: `query ${p.name} left out`,
          path: basePath,
          query: baseQuery.filter(([n]) => n !== p.name),
          body: baseXml,
          admitted: false,
        });
    }
    if (oneOf.length > 0)
      out.push({
        what: `none of ${oneOf.join(', ')}`,
        path: basePath,
        query: baseQuery.filter(([n]) => !oneOf.includes(n)),
        body: baseXml,
        admitted: false,
      });
    if (bodySchema && body) {
      const s = resolve(bodySchema);
      if (op.requestBody!.required)
        out.push({ what: 'no body', path: basePath, query: baseQuery, body: '', admitted: false });
      for (const name of s.required ?? []) {
        const { [name]: _left, ...rest } = body as Record<string, any>;
        out.push({
          what: `<${name}> left out`,
          path: basePath,
          query: baseQuery,
          body: xml(rest),
          admitted: false,
        });
      }
      for (const [name, p] of Object.entries(s.properties as Record<string, Schema>)) {
        const prop = resolve(p);
        if (prop.type === 'array') {
          const item = resolve(prop.items);
          const base = (body as Record<string, any>)[name]?.[0];
          if (item.type === 'object' && base) {
            // An item outside its schema: the whole request refused, or the item in `failed`.
            const withItem = (changed: Record<string, string>) => xml({ ...body, [name]: [changed] });
            for (const n of item.required ?? []) {
              const { [n]: _left, ...rest } = base;
              out.push({
                what: `<${name}><${n}> left out`,
                path: basePath,
                query: baseQuery,
                body: withItem(rest),
                admitted: false,
                itemLevel: true,
              });
            }
            for (const [n, p] of Object.entries((item.properties ?? {}) as Record<string, Schema>))
              for (const [what, value, admitted] of bounds(resolve(p), false))
                if (!admitted)
                  out.push({
                    what: `<${name}><${n}>: ${what}`,
                    path: basePath,
                    query: baseQuery,
                    body: withItem({ ...base, [n]: value }),
                    admitted: false,
                    itemLevel: true,
                  });
          }
          if (prop.maxItems !== undefined && body[name])
            out.push({
              what: `<${name}> ${prop.maxItems + 1} times (maxItems ${prop.maxItems})`,
              path: basePath,
              query: baseQuery,
              body: xml({ ...body, [name]: Array(prop.maxItems + 1).fill(body[name][0]) }),
              admitted: false,
            });
          continue;
        }
        for (const [what, value, admitted] of bounds(prop, false))
          out.push({
            what: `<${name}>: ${what}`,
            path: basePath,
            query: baseQuery,
            body: xml({ ...body, [name]: value }),
            admitted,
          });
      }
    }
    return out;
  }

  function clientFor(op: Operation): ApiClient | undefined {
    const kinds = op['x-app-kinds'];
    if (kinds.length === 0) return undefined;
    if (op.operationId === 'postAccess') return appOnly;
    // A widget app where one may ask (the price guide is not for a private seller's dedicated app),
    // else the buyer: user 1, the lowest id, is then another user (the seller), as a thread needs.
    if (kinds.includes('widget')) return world.widget;
    // Stock writes by the seller, whose articles the ids name (an item fails for its own fault).
    if (op.operationId.toLowerCase().includes('stock') && kinds.includes('dedicated'))
      return world.seller.api;
    return kinds.includes('dedicated') ? world.buyer.api : thirdParty;
  }

  it('answers every derived request as the document says', async () => {
    const wrong: string[] = [];
    let sent = 0;
    for (const [template, ops] of Object.entries(doc.paths as Record<string, Record<string, Operation>>)) {
      for (const [method, op] of Object.entries(ops)) {
        for (const c of cases(op)) {
          const path = template.replace(/\{(\w+)\}/g, (_m, n: string) => encodeURIComponent(c.path[n]!));
          const query = c.query
            .map(([n, v]) => `${encodeURIComponent(n)}=${encodeURIComponent(v)}`)
            .join('&');
          const url = `${path}${query ? `?${query}` : ''}`;
          const client = clientFor(op);
          const options = { body: c.body === '' ? undefined : c.body };
          const res = client
            ? await client.request(method.toUpperCase(), url, options)
            : await world.seller.api.request(method.toUpperCase(), url, { ...options, unsigned: true });
          sent++;
          const code = /<internal_error_code>([^<]*)/.exec(res.text)?.[1];
          const ok = c.admitted
            ? res.status < 500 && (res.status !== 400 || ON_OTHER_GROUNDS.includes(code ?? ''))
            : res.status === 400 ||
              (c.pathEnum === true && res.status === 404) ||
              (c.itemLevel === true &&
                res.status < 300 &&
                /<failed>|<success>false<\/success>/.test(res.text));
          if (!ok)
            wrong.push(
              `${method.toUpperCase()} ${url} (${c.what}): ${res.status}, the document says ${c.admitted ? 'admitted' : '400'}${
                res.status >= 400 ? ` — ${/<mkm_error_description>([^<]*)/.exec(res.text)?.[1] ?? ''}` : ''
              }`,
            );
        }
      }
    }
    assert.ok(sent > 300, `only ${sent} requests derived`);
    assert.deepEqual(wrong, []);
  });

  it('answers a method a path does not take with 405 and Allow, before reading the body', async () => {
    const wrong: string[] = [];
    for (const [template, ops] of Object.entries(doc.paths as Record<string, Record<string, Operation>>)) {
      const path = template.replace(/\{(\w+)\}/g, (_m, n: string) => pathValues[n] ?? '1');
      const allowed = new Set(Object.keys(ops).map((m) => m.toUpperCase()));
      for (const [prefix, method] of ['', '/output.json'].flatMap((p) =>
        ['QUERY', 'PROPFIND', 'PATCH', 'PUT', 'DELETE', 'POST'].map((m) => [p, m] as const),
      )) {
        if (allowed.has(method)) continue;
        const res = await world.server.app.inject({
          method: method as 'GET',
          url: `/ws/v2.0${prefix}${path}`,
          headers: { host: 'api.cardbazaar.test', 'content-type': 'text/plain' },
          payload: 'not xml',
        });
        const allow = String(res.headers.allow ?? '');
        if (res.statusCode !== 405 || ![...allowed].every((m) => allow.includes(m)))
          wrong.push(`${method} ${prefix}${path}: ${res.statusCode}, Allow ${allow}`);
      }
    }
    assert.deepEqual(wrong, []);
  });

  it('refuses a JSON request body with the 417 every body operation lists (bodies are XML only)', async () => {
    const wrong: string[] = [];
    for (const [template, ops] of Object.entries(doc.paths as Record<string, Record<string, Operation>>))
      for (const [method, op] of Object.entries(ops)) {
        if (!op.requestBody) continue;
        assert.deepEqual(Object.keys(op.requestBody.content), ['application/xml'], template);
        const path = template.replace(/\{(\w+)\}/g, (_m, n: string) => pathValues[n] ?? '1');
        const res = await (clientFor(op) ?? world.seller.api).request(method.toUpperCase(), path, {
          body: '{"request":{}}',
          headers: { 'content-type': 'application/json' },
        });
        if (res.status !== 417 || !(op as any).responses['417'])
          wrong.push(`${method.toUpperCase()} ${path}: ${res.status}`);
      }
    assert.deepEqual(wrong, []);
  });

  it('answers a method token nobody knows with 405 and Allow on the wire', async () => {
    const address = await world.server.app.listen({ port: 0, host: '127.0.0.1' });
    const port = Number(new URL(address).port);
    for (const method of ['QUERY', 'FOO', 'BREW']) {
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => {
          socket.end(
            `${method} /ws/v2.0/games HTTP/1.1\r\nHost: api.cardbazaar.test\r\nContent-Length: 7\r\n\r\nnot xml`,
          );
        });
        let text = '';
        socket.on('data', (d) => (text += d.toString('latin1')));
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
      });
      assert.match(answer, /^HTTP\/1\.1 405 /, `${method}: ${answer.slice(0, 200)}`);
      assert.match(answer, /\r\nallow: GET, OPTIONS\r\n/i, method);
    }
  });

  it('says so in the document: unknown query parameters and elements are ignored, every integer bounded', () => {
    assert.match(doc.info.description, /405/);
    assert.match(doc.info.description, /ignored/);
    for (const [template, ops] of Object.entries(doc.paths as Record<string, Record<string, Operation>>))
      for (const [method, op] of Object.entries(ops)) {
        for (const p of op.parameters ?? []) {
          const s = resolve(p.schema);
          const one = s.type === 'array' ? resolve(s.items) : s;
          if (one.type === 'integer')
            assert.ok(
              one.minimum !== undefined && one.maximum !== undefined,
              `${method} ${template} ${p.name}: an unbounded integer`,
            );
        }
        const body = op.requestBody?.content['application/xml']?.schema;
        if (body) assert.equal(resolve(body).additionalProperties, true, `${method} ${template}: body`);
      }
    assert.equal(MAX_ID, 2 ** 31 - 1);
  });
});

import type { TSchema } from '@sinclair/typebox';
import { canonicalBaseString, percentEncode, sign, signingKey } from '../auth/oauth.js';
import { groupOf } from '../limits/groups.js';
import { LIMIT_COUNT_HEADER, LIMIT_MAX_HEADER } from '../limits/headers.js';
import { INTEGER_BOUNDS } from './fields.js';
import { CONTROL_TAG, controlApiParts, EXTENSION_MARK } from './openapi-control.js';
import { ALL_KINDS, API_PREFIX, type RouteDefinition } from './routing.js';

/**
 * The OpenAPI 3.1 document, generated from what every route declares beside its handler
 * (`RouteOptions.schema`, `src/http/route-schema.ts`) and the entity schemas beside the mappers:
 * nothing in it is written twice. `GET /ws/v2.0/openapi.json` serves it, `cardbazaar openapi`
 * prints it, `/docs/api/reference` renders it, and the contract tests check every answer the suites get against it.
 */
export type JsonObject = Record<string, unknown>;

/**
 * The recorded example of one operation (`docs/openapi-examples.json`, written by
 * `npm run openapi:examples` from real requests on the demo data, never by hand).
 */
export interface OperationExample {
  route: string;
  summary: string;
  request: {
    method: string;
    /** Relative to `/ws/v2.0` (the JSON variant puts `/output.json` first), query included. */
    path: string;
    /** The header of the XML request; null: not signed. */
    authorization: string | null;
    body: string | null;
  };
  status: number;
  location?: string;
  /** The answer in both formats (the tree's operations). */
  xml?: string;
  json?: unknown;
  /** A document of its own (a file): its media type and body. */
  mediaType?: string;
  body?: unknown;
  /** Why no body is kept. */
  omitted?: string;
}

export interface ExamplesFile {
  about: string;
  baseUrl: string;
  time: string;
  /** By operationId. */
  operations: Record<string, OperationExample>;
}

/** Where the examples were sent: the address `npm start` listens on. */
export const EXAMPLES_BASE_URL = 'http://127.0.0.1:8080';

/** The extension that names the app kinds a route admits (spec §5.5); `[]`: no OAuth at all. */
export const APP_KINDS_EXTENSION = 'x-app-kinds';

/** The extension that lists query parameters of which a request must give one (`RouteSchema.requiredOneOf`). */
export const REQUIRED_ONE_OF_EXTENSION = 'x-required-one-of';

/**
 * Statuses any signed route may answer before or beside its own rules: bad input, the signature
 * and the app kind, ids not found (or not the caller's), an old base address past its cutoff
 * (`OLD_BASE_URLS`), an `Expect` header refused (checked before any route, body or not), the
 * limits, and the unexpected (the body names the request id).
 */
const SIGNED_ERRORS = [400, 401, 403, 404, 410, 417, 429, 500, 503];
/** Statuses an unsigned route may answer. */
const PUBLIC_ERRORS = [400, 404, 410, 417, 500];
/** What reading a request body may answer: too large, not UTF-8 (not XML at all is the 417). */
const BODY_ERRORS = [413, 415];

const STATUS_DESCRIPTIONS: Record<number, string> = {
  200: 'OK',
  202: 'Accepted: the request is queued.',
  204: 'No content: an empty collection, or nothing to answer.',
  206: 'A page of a larger collection; `Content-Range` says which.',
  303: 'See other: the browser goes on to the `Location`.',
  307: 'The collection is too large to answer at once: sign the `Location` (the first page) anew.',
  400: 'Bad request: the error body names the field (`post_data_field`).',
  401: 'Not signed, a bad signature, an unknown, revoked or expired token, or (sandbox) a live host `LIVE_HOSTS` does not accept.',
  403: 'This app kind may not call this resource, or the action is not allowed.',
  404: 'Not found (also what ids of other users\u2019 things answer).',
  409: 'Conflict.',
  410: 'Gone: an old base address past its cutoff, an expired export file, or (sandbox, `LIVE_HOST_MOVED`) `api.cardmarket.com` since the move to apiv2.',
  412: 'Precondition failed: the state does not allow this.',
  413: 'The request body is too large.',
  415: 'The request body is in a charset other than UTF-8.',
  417: 'The `Expect` header is refused, or a request body is not XML (JSON, text, a form): request bodies are XML only, as on the live API.',
  500: 'Internal server error; the description names the request id for the server log.',
  429: 'A request limit was reached (`Retry-After`).',
  503: 'Over the per-minute rate (`Slow Down`), or the server is closing.',
};

/** `/orders/:actor/:state` → `/orders/{actor}/{state}`. */
export const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

/** `GET /orders/:actor/:state/:start` → `getOrdersActorStateStart`. */
export function operationId(method: string, path: string): string {
  const words = path
    .split(/[/:_.-]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1));
  return method.toLowerCase() + words.join('');
}

/**
 * Entity schemas carry an `$id`: each becomes one `components.schemas` entry and a `$ref`
 * wherever it is used (TypeBox's symbols fall away in the JSON round trip).
 */
class Components {
  readonly schemas: Record<string, JsonObject> = {};

  hoist(schema: TSchema | JsonObject): JsonObject {
    return this.walk(JSON.parse(JSON.stringify(schema)) as JsonObject);
  }

  private walk(node: unknown): JsonObject {
    if (Array.isArray(node)) return node.map((n) => this.walk(n)) as unknown as JsonObject;
    if (node === null || typeof node !== 'object') return node as JsonObject;
    const obj = node as JsonObject;
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(obj)) {
      if (k === '$id') continue;
      out[k] =
        k === 'properties' || k === 'patternProperties'
          ? Object.fromEntries(Object.entries(v as JsonObject).map(([pk, pv]) => [pk, this.walk(pv)]))
          : typeof v === 'object' && v !== null
            ? this.walk(v)
            : v;
    }
    const id = obj.$id;
    if (typeof id !== 'string') return out;
    const existing = this.schemas[id];
    if (existing && JSON.stringify(existing) !== JSON.stringify(out))
      throw new Error(`two different schemas are both named ${id}`);
    this.schemas[id] = out;
    return { $ref: `#/components/schemas/${id}` };
  }
}

/**
 * What the server reads (a parameter, a request body's element) as the field parsers read it
 * (`src/http/fields.ts`): an integer no route narrows still has `parseInteger`'s bounds (a 32-bit
 * column), and a body's elements no route names are ignored. Said in the document, so a client
 * generated from it refuses what the server would (issue 32: a schema looser than the server).
 */
export function strictInput(node: unknown): JsonObject {
  if (Array.isArray(node)) return node.map(strictInput) as unknown as JsonObject;
  if (node === null || typeof node !== 'object') return node as JsonObject;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(node as JsonObject))
    out[k] =
      k === 'properties'
        ? Object.fromEntries(Object.entries(v as JsonObject).map(([pk, pv]) => [pk, strictInput(pv)]))
        : strictInput(v);
  if (out.type === 'integer' && out.enum === undefined) {
    out.minimum ??= INTEGER_BOUNDS.min;
    out.maximum ??= INTEGER_BOUNDS.max;
  }
  if (out.type === 'object' && out.properties !== undefined) out.additionalProperties ??= true;
  return out;
}

/** What the document says of request elements it does not name. */
const IGNORED_ELEMENTS =
  'Elements not named here are ignored (`additionalProperties: true`), as are query parameters an operation does not list.';

const LIMIT_HEADERS = {
  [LIMIT_COUNT_HEADER]: { $ref: '#/components/headers/RequestLimitCount' },
  [LIMIT_MAX_HEADER]: { $ref: '#/components/headers/RequestLimitMax' },
};

/** The answer in both formats: the same tree, the root element `response` in XML. */
function treeContent(ref: string): JsonObject {
  return {
    'application/xml': { schema: { $ref: ref } },
    'application/json': { schema: { $ref: ref } },
  };
}

/** A parameter's example as its schema types it (the URL holds text). */
function typed(text: string, schema: JsonObject): unknown {
  const type = schema.type;
  if (type === 'integer' || type === 'number') return Number(text);
  if (type === 'boolean') return text === 'true';
  return text;
}

/**
 * The XML as the server writes it (one line) indented for reading: Redoc shows an example as is.
 * Elements hold either text or elements (never both), which is all this needs to know.
 */
export function indentXml(xml: string): string {
  const end = xml.startsWith('<?xml') ? xml.indexOf('?>') + 2 : 0;
  const tokens =
    xml
      .slice(end)
      .trim()
      .match(/<[^>]+>|[^<]+/g) ?? [];
  const lines = end > 0 ? [xml.slice(0, end)] : [];
  let depth = 0;
  const pad = () => '  '.repeat(Math.max(depth, 0));
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    const next = tokens[i + 1];
    if (t.startsWith('</')) {
      depth--;
      lines.push(pad() + t);
    } else if (!t.startsWith('<') || t.endsWith('/>')) {
      lines.push(pad() + t);
    } else if (next !== undefined && !next.startsWith('<') && tokens[i + 2]?.startsWith('</')) {
      lines.push(pad() + t + next + tokens[i + 2]!);
      i += 2;
    } else if (next?.startsWith('</')) {
      lines.push(pad() + t + next);
      i += 1;
    } else {
      lines.push(pad() + t);
      depth++;
    }
  }
  return lines.join('\n');
}

/** The recorded request as a code sample (Redoc's `x-codeSamples`), with the answer when it has no body. */
function codeSample(example: OperationExample): JsonObject {
  const { method, path, authorization, body } = example.request;
  const lines = [`${method} /ws/v2.0${path} HTTP/1.1`, `Host: ${new URL(EXAMPLES_BASE_URL).host}`];
  if (authorization) lines.push(`Authorization: ${authorization}`);
  if (body !== null) lines.push('Content-Type: application/xml', '', indentXml(body));
  if (example.location) lines.push('', `HTTP/1.1 ${example.status}`, `Location: ${example.location}`);
  return { lang: 'http', label: 'Signed request (demo data)', source: lines.join('\n') };
}

/** Puts the recorded example on the operation: parameters, request body, the answer in both formats. */
function addExample(op: JsonObject, def: RouteDefinition, example: OperationExample): void {
  const url = new URL(`${EXAMPLES_BASE_URL}/ws/v2.0${example.request.path}`);
  const segments = url.pathname.split('/').slice(3);
  const names = def.path.split('/').slice(1);
  for (const p of (op.parameters ?? []) as JsonObject[]) {
    const schema = p.schema as JsonObject;
    if (p.in === 'path') {
      const i = names.indexOf(`:${p.name as string}`);
      if (i >= 0 && segments[i] !== undefined) p.example = typed(decodeURIComponent(segments[i]), schema);
    } else if (url.searchParams.has(p.name as string)) {
      const all = url.searchParams.getAll(p.name as string);
      p.example =
        schema.type === 'array'
          ? all.map((v) => typed(v, (schema.items ?? {}) as JsonObject))
          : typed(all[0]!, schema);
    }
  }
  const requestBody = op.requestBody as JsonObject | undefined;
  if (requestBody && example.request.body !== null) {
    const xml = (requestBody.content as Record<string, JsonObject>)['application/xml']!;
    xml.examples = { demo: { summary: example.summary, value: indentXml(example.request.body) } };
  }
  const response = (op.responses as Record<string, JsonObject>)[String(example.status)];
  const content = response?.content as Record<string, JsonObject> | undefined;
  if (content) {
    const put = (mediaType: string, value: unknown) => {
      if (value !== undefined && content[mediaType])
        content[mediaType] = {
          ...content[mediaType],
          examples: { demo: { summary: example.summary, value } },
        };
    };
    put('application/xml', example.xml === undefined ? undefined : indentXml(example.xml));
    put('application/json', example.json);
    if (example.mediaType) put(example.mediaType, example.body);
  }
  op['x-codeSamples'] = [codeSample(example)];
}

function operation(
  def: RouteDefinition,
  components: Components,
  answers: Record<string, JsonObject>,
  example: OperationExample | undefined,
) {
  const { method, path, options } = def;
  const schema = options.schema;
  if (!schema) throw new Error(`${method} ${path} declares no schema (RouteOptions.schema)`);
  const id = operationId(method, path);
  const signed = options.kinds !== 'public';
  const parameters: JsonObject[] = [];
  for (const name of [...path.matchAll(/:(\w+)/g)].map((m) => m[1]!)) {
    const p = schema.params?.[name];
    parameters.push({
      name,
      in: 'path',
      required: true,
      schema: p ? strictInput(components.hoist(p)) : { type: 'string' },
    });
  }
  for (const [name, p] of Object.entries(schema.query ?? {})) {
    const hoisted = strictInput(components.hoist(p));
    const repeated = hoisted.type === 'array';
    parameters.push({
      name,
      in: 'query',
      required: schema.requiredQuery?.includes(name) ?? false,
      ...(typeof hoisted.description === 'string' ? { description: hoisted.description } : {}),
      schema: hoisted,
      ...(repeated ? { style: 'form', explode: true } : {}),
    });
  }
  const headers = signed ? LIMIT_HEADERS : {};
  const responses: Record<string, JsonObject> = {};
  for (const [status, body] of Object.entries(schema.responses)) {
    const code = Number(status);
    const response: JsonObject = { description: STATUS_DESCRIPTIONS[code] ?? 'OK' };
    if (code === 303) response.headers = { Location: { $ref: '#/components/headers/Location' } };
    else if (Object.keys(headers).length > 0) response.headers = headers;
    if (body !== null) {
      if (schema.mediaType) {
        response.content = { [schema.mediaType]: { schema: components.hoist(body) } };
      } else {
        const name = `${id[0]!.toUpperCase()}${id.slice(1)}${status}`;
        answers[name] = { ...components.hoist(body), xml: { name: 'response' } };
        response.content = treeContent(`#/components/schemas/${name}`);
        if (schema.paginated && code === 200) {
          responses['206'] = {
            description: STATUS_DESCRIPTIONS[206],
            headers: { ...headers, 'Content-Range': { $ref: '#/components/headers/ContentRange' } },
            content: treeContent(`#/components/schemas/${name}`),
          };
        }
      }
    }
    responses[status] = response;
  }
  if (schema.paginated) {
    responses['204'] ??= { description: STATUS_DESCRIPTIONS[204], headers };
    responses['307'] = {
      description: STATUS_DESCRIPTIONS[307],
      headers: { ...headers, Location: { $ref: '#/components/headers/Location' } },
    };
  }
  for (const code of [
    ...(signed ? SIGNED_ERRORS : PUBLIC_ERRORS),
    ...(schema.body ? BODY_ERRORS : []),
    ...(schema.errors ?? []),
  ]) {
    responses[String(code)] ??= { $ref: `#/components/responses/Error${code}` };
  }
  const sorted = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b)));
  const kinds = options.kinds === 'public' ? [] : [...options.kinds];
  const op: JsonObject = {
    operationId: id,
    summary: schema.summary,
    description: [
      schema.description,
      schema.requiredOneOf
        ? `Give at least one of ${schema.requiredOneOf.map((n) => `\`${n}\``).join(', ')} (\`${REQUIRED_ONE_OF_EXTENSION}\`); without any the answer is 400.`
        : undefined,
      signed
        ? `Signed (OAuth 1.0) by ${kinds.length === ALL_KINDS.length ? 'every app kind' : kinds.join(' and ')} apps${options.signedBy === 'app' ? ', with the app token and secret alone' : ''}.`
        : 'Not signed.',
    ]
      .filter(Boolean)
      .join('\n\n'),
    tags: [groupOf(`${method} ${path}`) ?? 'other'],
    [APP_KINDS_EXTENSION]: kinds,
    security: signed ? [{ OAuth1: [] }] : [],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(schema.requiredOneOf ? { [REQUIRED_ONE_OF_EXTENSION]: schema.requiredOneOf } : {}),
  };
  if (schema.body) {
    const name = `${id[0]!.toUpperCase()}${id.slice(1)}Request`;
    answers[name] = { ...strictInput(components.hoist(schema.body)), xml: { name: 'request' } };
    op.requestBody = {
      required: true,
      description: `XML, root element \`request\` (also in the JSON format: the API reads XML bodies). ${IGNORED_ELEMENTS}`,
      content: { 'application/xml': { schema: { $ref: `#/components/schemas/${name}` } } },
    };
  }
  op.responses = sorted;
  if (example) addExample(op, def, example);
  return op;
}

/** A worked example of a signed call, computed by the server's own signing functions. */
export function signingExample() {
  const example = {
    method: 'GET',
    url: 'https://api.cardbazaar.example/ws/v2.0/output.json/products/find?search=Springleaf&idGame=1',
    appToken: 'bfaD9xOU0SXBhtBP',
    appSecret: 'pChvrpp6AEOEwxBIIUBOvWcRG3X9xL4Y',
    accessToken: 'lBY1xptUJ7ZJSK01x4fNwzw8kAe5b10Q',
    accessTokenSecret: 'hc1wJAOX02pGGJK2uAv1ZOiwS7I9Tpoe',
    nonce: '53eb1f44909d6',
    timestamp: '1407917892',
  };
  const u = new URL(example.url);
  const realm = `${u.origin}${u.pathname}`;
  const oauthParams: Array<[string, string]> = [
    ['oauth_consumer_key', example.appToken],
    ['oauth_token', example.accessToken],
    ['oauth_nonce', example.nonce],
    ['oauth_timestamp', example.timestamp],
    ['oauth_signature_method', 'HMAC-SHA1'],
    ['oauth_version', '1.0'],
  ];
  const baseString = canonicalBaseString({
    method: example.method,
    origin: u.origin,
    path: u.pathname,
    rawQuery: u.search.slice(1),
    oauthParams,
  });
  const key = signingKey(example.appSecret, example.accessTokenSecret);
  const signature = sign(baseString, key);
  const header =
    `OAuth realm="${realm}", ` +
    oauthParams.map(([k, v]) => `${k}="${v}"`).join(', ') +
    `, oauth_signature="${percentEncode(signature)}"`;
  return { ...example, realm, baseString, key, signature, header };
}

function introduction(): string {
  const ex = signingExample();
  return `cardbazaar speaks the Cardmarket-style **Marketplace API 2.0**. Every path below is relative to
\`/ws/v2.0\`; answers are XML (root element \`response\`) unless the path starts with the
\`/ws/v2.0/output.json\` segment, which gives the same tree as JSON (the second server above).
Request bodies are XML in both formats, root element \`request\`.

## Signing a request (OAuth 1.0, HMAC-SHA1)

Every resource except the few marked _Not signed_ needs an \`Authorization\` header signed with
four credentials: the **app token** and **app secret**, the **access token** and **access token
secret** (the profile page shows all four for a dedicated app). Per request:

1. Collect the parameters: \`oauth_consumer_key\` (app token), \`oauth_token\` (access token; empty
   for widget apps), \`oauth_nonce\` (unique per request), \`oauth_timestamp\` (seconds, now),
   \`oauth_signature_method=HMAC-SHA1\`, \`oauth_version=1.0\`, **and every query parameter**.
2. Percent-encode each name and value (RFC 3986: a space is \`%20\`, never \`+\`), sort by name then
   value, join as \`name=value\` with \`&\`.
3. The **base string** is \`METHOD&\` + the encoded URL without its query (scheme, host, port only
   when not the default, path) + \`&\` + the encoded parameter string.
4. The **key** is the encoded app secret + \`&\` + the encoded access token secret.
5. The signature is base64(HMAC-SHA1(key, base string)). Send all of it in the header, with
   \`realm\` = the URL without its query (realm is not signed).

### A worked example

\`${ex.method} ${ex.url}\` with app token \`${ex.appToken}\`, app secret \`${ex.appSecret}\`,
access token \`${ex.accessToken}\`, access token secret \`${ex.accessTokenSecret}\`, nonce
\`${ex.nonce}\` and timestamp \`${ex.timestamp}\`:

Base string:

\`\`\`
${ex.baseString}
\`\`\`

Key: \`${ex.key}\`

Signature: \`${ex.signature}\`

Header:

\`\`\`
Authorization: ${ex.header}
\`\`\`

In the sandbox a 401 for a bad signature carries the base string the server computed, to compare
with yours; \`npx cardbazaar request GET /account --user NAME\` makes a correctly signed call.

## Collections, limits, errors

Collections answer 200 when whole, **206** with \`Content-Range: first-last/total\` (0-based) for a
page (\`?start=0&maxResults=100\`, or a 1-based \`/start\` path segment where the path has one),
**204** when empty, and **307** to the first page when an unpaginated request would be too large
(the \`Location\` is absolute: sign it anew). Signed answers carry \`${LIMIT_COUNT_HEADER}\` and
\`${LIMIT_MAX_HEADER}\` for apps with a daily quota; over a limit the answer is 429 with
\`Retry-After\`. Every error has the same body (the \`Error\` schema), in the request's format.

\`${APP_KINDS_EXTENSION}\` on each operation lists the app kinds that may call it (\`dedicated\`,
\`widget\`, \`thirdParty\`); an empty list means no signature at all.

## What the server refuses, and what it ignores

Every bound the server checks is in this document: an integer's \`minimum\` and \`maximum\` (ids are
32-bit, 1 to 2147483647; \`start\` is at most 1000000000), a string's \`maxLength\`, \`pattern\` and
\`enum\`, the required query parameters (\`${REQUIRED_ONE_OF_EXTENSION}\` where one of several is),
and the required elements of a request body. A request outside them is answered 400, the error
body naming the field; one inside them is never refused for its form (it may still be 404, 409,
412… for what the data says). In bulk writes (\`<article>\` lists) an item outside its schema fails
on its own, listed in the answer, while the rest go on; only the list as a whole (missing, over
\`maxItems\`) is a 400. Query parameters an operation does not list, and request elements a schema
does not name (\`additionalProperties: true\`), are **ignored**. A method a path does not take —
\`QUERY\`, \`PATCH\`, any other token — is answered **405** with \`Allow\` listing the ones it does,
before any body is read; OPTIONS answers every path.`;
}

export interface DocumentOptions {
  version: string;
  /** The recorded examples (`docs/openapi-examples.json`), shown on their operations. */
  examples?: ExamplesFile;
  /**
   * Where the server is reached (`https://api.example.org`, a proxy's path included), so a client
   * tool that imports the document has a host to call; without it the servers are relative.
   */
  origin?: string;
  /** Describe the sandbox control API too (`/_cardbazaar/`): the sandbox's document, not production's. */
  control?: boolean;
}

export function openApiDocument(
  routes: RouteDefinition[],
  { version, examples, origin = '', control = false }: DocumentOptions,
): JsonObject {
  const sandboxControl = control ? controlApiParts() : undefined;
  const components = new Components();
  const answers: Record<string, JsonObject> = {};
  const paths: Record<string, JsonObject> = {};
  for (const def of routes) {
    const key = openApiPath(def.path);
    paths[key] ??= {};
    const example = examples?.operations[operationId(def.method, def.path)];
    paths[key][def.method.toLowerCase()] = operation(def, components, answers, example);
  }
  const errorResponses: Record<string, JsonObject> = {};
  const codes = new Set<number>([...SIGNED_ERRORS, ...PUBLIC_ERRORS, ...BODY_ERRORS]);
  for (const def of routes) for (const c of def.options.schema?.errors ?? []) codes.add(c);
  for (const code of [...codes].sort((a, b) => a - b)) {
    errorResponses[`Error${code}`] = {
      description: STATUS_DESCRIPTIONS[code] ?? 'Error',
      ...(code === 429 ? { headers: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } } : {}),
      content: treeContent('#/components/schemas/Error'),
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'cardbazaar Marketplace API 2.0',
      version,
      description: introduction(),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [
      { url: `${origin}${API_PREFIX}`, description: 'XML answers (also `/ws/v2.0/output.xml`).' },
      {
        url: `${origin}${API_PREFIX}/output.json`,
        description: 'JSON answers: the same paths after `output.json`.',
      },
    ],
    tags: [
      ...[...new Set(routes.map((r) => groupOf(`${r.method} ${r.path}`) ?? 'other'))].map((name) => ({
        name,
        description: `Requests of the \`${name}\` limit group.`,
      })),
      ...(sandboxControl
        ? [
            {
              name: CONTROL_TAG,
              description:
                'An extension (sandbox only; production answers 404): what a test suite does to the sandbox over HTTP, at `/_cardbazaar/` on the server’s origin, with `Authorization: Bearer <controlToken>` (docs/testing-your-client.md, "The control API").',
              [EXTENSION_MARK]: true,
            },
          ]
        : []),
    ],
    security: [{ OAuth1: [] }],
    paths: { ...paths, ...sandboxControl?.paths },
    components: {
      securitySchemes: {
        OAuth1: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description:
            'OAuth 1.0 (RFC 5849) with HMAC-SHA1: `OAuth realm="…", oauth_consumer_key="…", oauth_token="…", oauth_nonce="…", oauth_timestamp="…", oauth_signature_method="HMAC-SHA1", oauth_version="1.0", oauth_signature="…"`. OpenAPI has no OAuth 1.0 scheme; the introduction shows how to sign.',
        },
        ...(sandboxControl
          ? {
              ControlToken: {
                type: 'http',
                scheme: 'bearer',
                description:
                  'The sandbox control API’s token: CONTROL_TOKEN, else printed at start and given as `controlToken` by `serve --print-credentials json` and `startSandbox()`.',
              },
            }
          : {}),
      },
      schemas: {
        ...components.schemas,
        ...sandboxControl?.schemas,
        Error: {
          type: 'object',
          description: 'The error body (reference §3), the same tree in XML and JSON.',
          xml: { name: 'response' },
          properties: {
            mkm_error_description: { type: 'string' },
            internal_error_code: { type: ['string', 'null'], description: 'A stable machine-readable code.' },
            post_data_field: { type: ['string', 'null'], description: 'The request element at fault.' },
            http_status_code: { type: 'integer' },
            http_status_code_description: { type: 'string' },
            rfc2616_description_link: { type: ['string', 'null'] },
          },
          required: [
            'mkm_error_description',
            'internal_error_code',
            'post_data_field',
            'http_status_code',
            'http_status_code_description',
            'rfc2616_description_link',
          ],
          additionalProperties: false,
        },
        ...answers,
      },
      responses: errorResponses,
      headers: {
        RequestLimitCount: {
          description: "Requests counted today against the app owner's daily quota (apps with one).",
          schema: { type: 'integer' },
        },
        RequestLimitMax: { description: 'The daily quota.', schema: { type: 'integer' } },
        ContentRange: {
          description: '`first-last/total`, 0-based and inclusive; `total` may read `1000+` where capped.',
          schema: { type: 'string', pattern: '^\\d+-\\d+/\\d+\\+?$' },
        },
        Location: { description: 'An absolute URL.', schema: { type: 'string' } },
        RetryAfter: { description: 'Seconds to wait.', schema: { type: 'integer' } },
      },
    },
  };
}

import { AssertionError } from 'node:assert';
import { PassThrough, Readable } from 'node:stream';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { FastifyInstance } from 'fastify';
import { XMLParser } from 'fast-xml-parser';
import { type JsonObject, openApiPath, operationId } from '../src/http/openapi.js';
import { Router } from '../src/http/routing.js';
import { registerRoutes } from '../src/routes/index.js';
import { apiDocument } from '../src/routes/openapi.js';
import type { Services } from '../src/services.js';
import { routeOf } from './parity-recorder.js';

/**
 * The contract tests: every answer a test server sends under `/ws/v2.0` (test/helpers.ts installs
 * the hook below) is held to the OpenAPI document the server publishes. The status must be one the
 * operation declares; a JSON body must be valid (ajv) against that status's schema; an XML body is
 * read into the same tree, guided by the schema (repeated elements are arrays, empty elements null
 * or empty lists, numbers and booleans from their text), and validated the same way. A mismatch
 * fails the test that made the request, naming the operation. `CARDBAZAAR_CONTRACT=off` turns it off.
 */
const OFF = process.env.CARDBAZAAR_CONTRACT === 'off';

interface Contract {
  doc: JsonObject;
  ajv: Ajv2020;
  validators: Map<string, ValidateFunction>;
}
let contract: Contract | undefined;

function load(services: Services): Contract {
  if (!contract) {
    const router = new Router();
    registerRoutes(router, services);
    const doc = apiDocument(router);
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    // Only the components: every schema the checks compile points there, and the paths (with their
    // recorded examples) would only cost the meta-schema walk time.
    ajv.addSchema({ $id: 'openapi', components: doc.components });
    // Compiled now rather than by the first answer's check, which would then take a few hundred ms.
    ajv.getSchema('openapi');
    contract = { doc, ajv, validators: new Map() };
  }
  return contract;
}

/** A validator of a schema of the document (its `$ref`s point into the document). */
function validator(c: Contract, schema: JsonObject): ValidateFunction {
  const text = JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/');
  let v = c.validators.get(text);
  if (!v) {
    v = c.ajv.compile(JSON.parse(text) as JsonObject);
    c.validators.set(text, v);
  }
  return v;
}

/** Follows `$ref`s (into the document's components). */
function resolve(c: Contract, schema: JsonObject | undefined): JsonObject | undefined {
  let s = schema;
  for (let i = 0; s && typeof s.$ref === 'string' && i < 10; i++) {
    let node: unknown = c.doc;
    for (const part of (s.$ref as string).replace(/^#\//, '').split('/')) node = (node as JsonObject)[part];
    s = node as JsonObject;
  }
  return s;
}

const xmlParser = new XMLParser({
  ignoreAttributes: true,
  ignoreDeclaration: true,
  parseTagValue: false,
  trimValues: false,
  // Every element as a list: the schema decides what is one value and what repeats.
  isArray: () => true,
});

const typesOf = (s: JsonObject): string[] =>
  Array.isArray(s.type) ? (s.type as string[]) : typeof s.type === 'string' ? [s.type] : [];

/** One XML element's content as the JSON value the schema describes. */
function fromXml(c: Contract, raw: unknown, schemaIn: JsonObject | undefined): unknown {
  const schema = resolve(c, schemaIn);
  if (!schema) return raw;
  // An object's `anyOf` of `required` lists (`count` or `amount`) constrains it, it is no variant.
  const variants = schema.properties
    ? undefined
    : ((schema.anyOf ?? schema.oneOf) as JsonObject[] | undefined);
  if (variants) {
    const empty = raw === '';
    const nullable = variants.some((v) => typesOf(resolve(c, v) ?? {}).includes('null'));
    if (empty && nullable) return null;
    // The first variant the element reads as validly (e.g. a thread's one message or its list).
    const attempts = variants.filter((v) => !typesOf(resolve(c, v) ?? {}).includes('null'));
    for (const v of attempts) {
      const value = fromXml(c, raw, v);
      if (validator(c, v)(value)) return value;
    }
    return fromXml(c, raw, attempts[0]);
  }
  const types = typesOf(schema);
  if (raw === '' && types.includes('null')) return null;
  if (types.includes('object') || schema.properties) {
    if (raw === '') return {};
    if (typeof raw !== 'object' || raw === null) return raw;
    const node = raw as Record<string, unknown[]>;
    const props = (schema.properties ?? {}) as Record<string, JsonObject>;
    const out: Record<string, unknown> = {};
    for (const [name, elements] of Object.entries(node)) {
      let prop = resolve(c, props[name]);
      // One value or a list (a thread's messages): repeated elements read as the list.
      const listVariant = ((prop?.anyOf ?? []) as JsonObject[]).find((v) =>
        typesOf(resolve(c, v) ?? {}).includes('array'),
      );
      if (listVariant && elements.length > 1) prop = resolve(c, listVariant);
      if (prop && typesOf(prop).includes('array')) {
        // A list the answer always carries is one empty element when empty.
        out[name] =
          elements.length === 1 && elements[0] === ''
            ? []
            : elements.map((e) => fromXml(c, e, prop.items as JsonObject));
      } else {
        // Repeated where one value belongs: keep the list, so the schema check reports it.
        out[name] = elements.length === 1 ? fromXml(c, elements[0], prop) : elements;
      }
    }
    // An empty list writes no element in XML (`src/http/xml.ts`): JSON has `[]` where XML has nothing.
    for (const [name, p] of Object.entries(props))
      if (!(name in out) && typesOf(resolve(c, p) ?? {}).includes('array')) out[name] = [];
    return out;
  }
  if (typeof raw !== 'string') return raw;
  if (types.includes('integer') || types.includes('number'))
    return /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
  if (types.includes('boolean')) return raw === 'true' ? true : raw === 'false' ? false : raw;
  if (schema.const !== undefined && typeof schema.const !== 'string')
    return /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw === 'true' ? true : raw === 'false' ? false : raw;
  return raw;
}

export interface ReceivedAnswer {
  status: number;
  contentType: string;
  body: string;
}

/** What is wrong with an answer, naming the operation; undefined when it keeps to the document. */
export function contractProblem(
  services: Services,
  method: string,
  url: string,
  res: ReceivedAnswer,
): string | undefined {
  if (OFF) return undefined;
  // A method the resource does not accept reaches no operation (405 with `Allow`).
  if (res.status === 405) return undefined;
  const at = routeOf(services, method, url);
  if (!at) return undefined;
  const c = load(services);
  const [, path] = at.route.split(' ') as [string, string];
  const name = `${at.route} (${operationId(method, path)}), ${at.format.toUpperCase()}`;
  const fail = (message: string) =>
    `Contract: ${name} answered ${res.status}: ${message}\n  body: ${res.body.slice(0, 600)}`;
  const op = ((c.doc.paths as JsonObject)[openApiPath(path)] as JsonObject | undefined)?.[
    method.toLowerCase()
  ] as JsonObject | undefined;
  if (!op) return fail('the document has no such operation');
  const declared = resolve(c, (op.responses as JsonObject)[String(res.status)] as JsonObject | undefined);
  if (!declared) return fail(`status ${res.status} is not declared for this operation`);
  const content = declared.content as Record<string, { schema: JsonObject }> | undefined;
  if (!content || res.body === '') return undefined;
  const mediaType = at.format === 'json' ? 'application/json' : 'application/xml';
  const schema = content[mediaType]?.schema;
  // A file or a document of its own (no tree): its media type is the route's to declare.
  if (!schema) return undefined;
  if (!res.contentType.startsWith(mediaType)) return fail(`the body is ${res.contentType}, not ${mediaType}`);
  let value: unknown;
  if (at.format === 'json') {
    try {
      value = JSON.parse(res.body);
    } catch {
      return fail('the body is not JSON');
    }
  } else {
    if (!res.body.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<response>'))
      return fail('the XML does not start with the declaration and <response>');
    const doc = xmlParser.parse(res.body) as { response: unknown[] };
    value = fromXml(c, doc.response[0], schema);
  }
  const validate = validator(c, schema);
  if (!validate(value))
    return fail(
      `the body does not match ${schema.$ref as string}: ${c.ajv.errorsText(validate.errors, { separator: '; ' })}`,
    );
  return undefined;
}

/** Throws an AssertionError naming the operation when the answer breaks the document. */
export function checkContract(services: Services, method: string, url: string, res: ReceivedAnswer): void {
  const problem = contractProblem(services, method, url, res);
  if (problem) throw new AssertionError({ message: problem });
}

/** An answer the hook below found at odds with the document. */
export interface ContractFailure {
  method: string;
  url: string;
  message: string;
  /** Already thrown by the `ApiClient` request that received it. */
  reported: boolean;
}

/** Marks the answer the hook replaced (its body is then the failure's message). */
export const CONTRACT_FAILURE_HEADER = 'x-cardbazaar-contract-failure';

/**
 * Holds every answer under `/ws/v2.0` the test server sends to the document, whoever asked
 * (`ApiClient`, `server.app.inject`, `fetch` against a listening server): installed by
 * `startTestServer` (test/helpers.ts). A mismatch is recorded in `failures`, and an answer still in
 * hand is replaced by a 500 whose text names the operation, so the test that made the request
 * fails on it (an assertion on its status or body); `server.close()` fails with what no request
 * reported. A streamed answer is read as it goes out and checked at its end (recorded only).
 */
export function installContractCheck(
  app: FastifyInstance,
  services: Services,
  failures: ContractFailure[],
): void {
  if (OFF) return;
  // Built now, not by the first answer: a test timing its requests must not pay for it.
  validator(load(services), { $ref: '#/components/schemas/Error' });
  routeOf(services, 'GET', '/ws/v2.0/');
  app.addHook('onSend', async (request, reply, payload) => {
    const url = request.originalUrl;
    if (!url.startsWith('/ws/')) return payload;
    // An injected fault's answer is a failure asked for on purpose (a 502, half a body), not the API's.
    if (request.injectedFault !== undefined) return payload;
    const method = request.method;
    const answer = (body: string): ReceivedAnswer => ({
      status: reply.statusCode,
      contentType: String(reply.getHeader('content-type') ?? ''),
      body,
    });
    if (payload instanceof Readable) {
      const chunks: Buffer[] = [];
      const tee = new PassThrough();
      tee.on('data', (chunk: Buffer | string) => chunks.push(Buffer.from(chunk)));
      tee.on('end', () => {
        const problem = contractProblem(
          services,
          method,
          url,
          answer(Buffer.concat(chunks).toString('utf8')),
        );
        if (problem) failures.push({ method, url, message: problem, reported: false });
      });
      payload.on('error', (err) => tee.destroy(err));
      return payload.pipe(tee);
    }
    const body =
      typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : '';
    const problem = contractProblem(services, method, url, answer(body));
    if (!problem) return payload;
    failures.push({ method, url, message: problem, reported: false });
    reply.code(500);
    reply.removeHeader('content-length');
    reply.header('content-type', 'text/plain; charset=utf-8');
    reply.header(CONTRACT_FAILURE_HEADER, '1');
    return problem;
  });
}

/** Throws when an XML request body (the content of `<request>`) breaks the operation's request schema. */
export function checkRequestBody(services: Services, method: string, url: string, xml: string): void {
  const at = routeOf(services, method, url);
  if (!at) throw new AssertionError({ message: `no operation answers ${method} ${url}` });
  const c = load(services);
  const [, path] = at.route.split(' ') as [string, string];
  const op = ((c.doc.paths as JsonObject)[openApiPath(path)] as JsonObject)[
    method.toLowerCase()
  ] as JsonObject;
  const content = (op.requestBody as JsonObject | undefined)?.content as
    Record<string, { schema: JsonObject }> | undefined;
  const schema = content?.['application/xml']?.schema;
  if (!schema) throw new AssertionError({ message: `${at.route} takes no request body` });
  const doc = xmlParser.parse(xml) as { request?: unknown[] };
  if (!doc.request) throw new AssertionError({ message: `${at.route}: the body has no <request> root` });
  const value = fromXml(c, doc.request[0], schema);
  const validate = validator(c, schema);
  if (!validate(value))
    throw new AssertionError({
      message: `Contract: ${at.route}: the request body does not match ${schema.$ref as string}: ${c.ajv.errorsText(validate.errors, { separator: '; ' })}`,
    });
}

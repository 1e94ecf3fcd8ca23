import type { JsonObject } from './openapi.js';

/**
 * The sandbox control API (`src/routes/control.ts`) in the OpenAPI document: its own tag, marked
 * as an extension, with its own server (the origin, not `/ws/v2.0`) and its own security scheme
 * (a bearer token, not OAuth). Production serves none of it, and its document leaves it out.
 */
export const CONTROL_TAG = 'Sandbox control';
/** Marks what cardbazaar adds beside the live API (design: "Beyond the live API"). */
export const EXTENSION_MARK = 'x-cardbazaar-extension';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const jsonBody = (schema: JsonObject) => ({ content: { 'application/json': { schema } } });
const errors = (...codes: number[]) =>
  Object.fromEntries(
    [401, ...codes].map((c) => [
      String(c),
      {
        description:
          c === 401
            ? 'No token, or a wrong one (`WWW-Authenticate: Bearer realm="cardbazaar-control"`).'
            : 'Error',
        content: { 'application/json': { schema: ref('Error') } },
      },
    ]),
  );

interface Op {
  summary: string;
  description?: string;
  body?: JsonObject;
  bodyTypes?: string[];
  params?: Array<{ name: string; in: 'path' | 'query'; schema: JsonObject; description?: string }>;
  status: number;
  answer?: JsonObject;
  errorCodes?: number[];
}

function operation(method: string, path: string, op: Op): JsonObject {
  const id = `control${method[0]!.toUpperCase()}${method.slice(1)}${path
    .split(/[/{}_-]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('')}`;
  return {
    operationId: id,
    summary: `${op.summary} (an extension, sandbox only)`,
    ...(op.description ? { description: op.description } : {}),
    tags: [CONTROL_TAG],
    [EXTENSION_MARK]: true,
    security: [{ ControlToken: [] }],
    ...(op.params ? { parameters: op.params.map((p) => ({ ...p, required: p.in === 'path' })) } : {}),
    ...(op.body
      ? {
          requestBody: {
            required: true,
            content: Object.fromEntries(
              (op.bodyTypes ?? ['application/json']).map((t) => [t, { schema: op.body }]),
            ),
          },
        }
      : {}),
    responses: {
      [String(op.status)]: op.answer
        ? { description: 'OK', ...jsonBody(op.answer) }
        : { description: op.status === 204 ? 'Done; no body.' : 'OK' },
      ...errors(...(op.errorCodes ?? [])),
    },
  };
}

const object = (properties: JsonObject, required: string[] = []): JsonObject => ({
  type: 'object',
  properties,
  ...(required.length ? { required } : {}),
});
const SNAPSHOT_NAME = { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$' };

/** The control API's paths (under the origin) and the schemas they name, for `openApiDocument`. */
export function controlApiParts(): { paths: Record<string, JsonObject>; schemas: JsonObject } {
  // Relative: resolved against the document's own address, that is the server's origin, whatever
  // address the document was asked at (the document is otherwise the same for every address).
  const servers = [{ url: '/', description: 'The server’s origin: the control API is not under /ws/v2.0.' }];
  const p = '/_cardbazaar';
  const paths: Record<string, JsonObject> = {
    [`${p}/health`]: {
      get: operation('get', '/health', {
        summary: 'Whether the control API answers, and in which mode',
        status: 200,
        answer: object({ ok: { const: true }, mode: { const: 'sandbox' } }, ['ok', 'mode']),
      }),
    },
    [`${p}/clock`]: {
      get: operation('get', '/clock', {
        summary: 'The marketplace clock',
        status: 200,
        answer: ref('ControlClock'),
      }),
    },
    [`${p}/clock/advance`]: {
      post: operation('post', '/clock/advance', {
        summary: 'Move the marketplace clock forward',
        body: object(
          {
            by: {
              oneOf: [
                { type: 'string', pattern: '^(\\d+(ms|s|m|h|d|w))+$', examples: ['8d', '1h30m'] },
                { type: 'integer', minimum: 0, description: 'Milliseconds.' },
              ],
            },
          },
          ['by'],
        ),
        status: 200,
        answer: ref('ControlClock'),
        errorCodes: [400],
      }),
    },
    [`${p}/clock/set`]: {
      post: operation('post', '/clock/set', {
        summary: 'Put the marketplace clock at a time (not before real time)',
        body: object({ to: { type: 'string', format: 'date-time' } }, ['to']),
        status: 200,
        answer: ref('ControlClock'),
        errorCodes: [400],
      }),
    },
    [`${p}/clock/reset`]: {
      post: operation('post', '/clock/reset', {
        summary: 'Put the marketplace clock back to real time',
        status: 200,
        answer: ref('ControlClock'),
      }),
    },
    [`${p}/faults`]: {
      get: operation('get', '/faults', {
        summary: 'The faults in force (the first that matches a request applies)',
        status: 200,
        answer: object({ faults: { type: 'array', items: ref('ControlFault') } }, ['faults']),
      }),
      post: operation('post', '/faults', {
        summary: 'Add a fault',
        description:
          'The body is read by the same parser as `cardbazaar faults add` (docs/testing-your-client.md, "Break it on purpose"); a field it refuses is named in `post_data_field`.',
        body: {
          type: 'object',
          properties: { path: { type: 'string' } },
          required: ['path'],
          additionalProperties: true,
        },
        status: 201,
        answer: object({ fault: ref('ControlFault') }, ['fault']),
        errorCodes: [400],
      }),
      delete: operation('delete', '/faults', { summary: 'Remove every fault', status: 204 }),
    },
    [`${p}/faults/{idFault}`]: {
      delete: operation('delete', '/faults/{idFault}', {
        summary: 'Remove one fault',
        params: [{ name: 'idFault', in: 'path', schema: { type: 'integer', minimum: 1 } }],
        status: 204,
        errorCodes: [404],
      }),
    },
    [`${p}/snapshots`]: {
      get: operation('get', '/snapshots', {
        summary: 'The saved snapshots',
        status: 200,
        answer: object({ snapshots: { type: 'array', items: ref('ControlSnapshot') } }, ['snapshots']),
        errorCodes: [400],
      }),
      post: operation('post', '/snapshots', {
        summary: 'Save the whole marketplace under a name (SQLite, `:memory:` included)',
        body: object({ name: SNAPSHOT_NAME }, ['name']),
        status: 201,
        answer: object({ snapshot: ref('ControlSnapshot') }, ['snapshot']),
        errorCodes: [400],
      }),
    },
    [`${p}/snapshots/{name}/load`]: {
      post: operation('post', '/snapshots/{name}/load', {
        summary: 'Replace the marketplace with a snapshot; requests arriving meanwhile wait',
        params: [{ name: 'name', in: 'path', schema: SNAPSHOT_NAME }],
        status: 200,
        answer: object({ snapshot: ref('ControlSnapshot') }, ['snapshot']),
        errorCodes: [400, 404],
      }),
    },
    [`${p}/snapshots/{name}`]: {
      delete: operation('delete', '/snapshots/{name}', {
        summary: 'Delete a snapshot',
        params: [{ name: 'name', in: 'path', schema: SNAPSHOT_NAME }],
        status: 204,
        errorCodes: [400, 404],
      }),
    },
    [`${p}/fixtures`]: {
      post: operation('post', '/fixtures', {
        summary: 'Build a world from a fixture document, all or nothing',
        description:
          'The format of `cardbazaar fixtures run` (docs/testing-your-client.md, "Build a world from a file"), as JSON or YAML. A failing step rolls back the whole document; `post_data_field` names it (`steps[2].price`).',
        body: object({ steps: { type: 'array', items: { type: 'object' } } }, ['steps']),
        bodyTypes: ['application/json', 'application/yaml'],
        status: 201,
        answer: object(
          {
            ids: {
              type: 'object',
              additionalProperties: { type: 'object' },
              description: 'Each named step’s result.',
            },
            apps: {
              type: 'array',
              items: object(
                {
                  step: { type: 'string' },
                  user: { type: 'string' },
                  appToken: { type: 'string' },
                  appSecret: { type: 'string' },
                  accessToken: { type: 'string' },
                  accessTokenSecret: { type: 'string' },
                },
                ['step', 'user', 'appToken', 'appSecret', 'accessToken', 'accessTokenSecret'],
              ),
            },
          },
          ['ids', 'apps'],
        ),
        errorCodes: [400, 415],
      }),
    },
    [`${p}/events/kinds`]: {
      get: operation('get', '/events/kinds', {
        summary: 'The event kinds a trigger can produce',
        status: 200,
        answer: object({ kinds: { type: 'array', items: { type: 'string' } } }, ['kinds']),
      }),
    },
    [`${p}/events/trigger`]: {
      post: operation('post', '/events/trigger', {
        summary: 'Make the marketplace produce an event of a kind, for real',
        body: object(
          {
            kind: { type: 'string' },
            user: {
              type: 'string',
              default: 'demo-seller',
              description: 'The user it concerns (for orders and articles: the seller).',
            },
            override: { type: 'object', additionalProperties: { type: 'string' } },
          },
          ['kind'],
        ),
        status: 201,
        answer: object(
          {
            event: { type: 'object', properties: { idEvent: { type: 'integer' }, kind: { type: 'string' } } },
            events: { type: 'array', items: { type: 'object' } },
          },
          ['event', 'events'],
        ),
        errorCodes: [400],
      }),
    },
    [`${p}/requests`]: {
      get: operation('get', '/requests', {
        summary: 'The request log, newest first',
        params: [
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000, default: 50 } },
          {
            name: 'start',
            in: 'query',
            schema: { type: 'integer', minimum: 0, maximum: 1_000_000_000, default: 0 },
          },
          {
            name: 'user',
            in: 'query',
            schema: { type: 'string' },
            description: 'Only this username’s requests.',
          },
          {
            name: 'status',
            in: 'query',
            schema: { type: 'string' },
            description: '`401`, `4xx`, `ok` or `failed`.',
          },
          {
            name: 'path',
            in: 'query',
            schema: { type: 'string', maxLength: 200 },
            description: 'Part of the path.',
          },
        ],
        status: 200,
        answer: object({ requests: { type: 'array', items: { type: 'object' } } }, ['requests']),
        errorCodes: [400],
      }),
    },
    [`${p}/reset`]: {
      post: operation('post', '/reset', {
        summary: 'Back to the state the server started with (the seeded demo data); faults cleared',
        status: 200,
        answer: object({ ok: { const: true } }, ['ok']),
        errorCodes: [400, 404],
      }),
    },
  };
  // On each operation rather than the path item, so that a path item holds methods only.
  for (const item of Object.values(paths))
    for (const op of Object.values(item)) (op as JsonObject).servers = servers;
  const schemas: JsonObject = {
    ControlClock: object(
      {
        now: { type: 'string', description: 'Marketplace time, ISO 8601 with offset.' },
        offsetMs: { type: 'integer', minimum: 0 },
      },
      ['now', 'offsetMs'],
    ),
    ControlFault: object(
      {
        idFault: { type: 'integer' },
        method: { type: ['string', 'null'] },
        path: { type: 'string' },
        status: { type: ['integer', 'null'] },
        rate: { type: 'number' },
        latencyMs: { type: 'integer' },
        drop: { type: 'boolean' },
        createdAt: { type: 'string' },
      },
      ['idFault', 'path'],
    ),
    ControlSnapshot: object(
      { name: { type: 'string' }, createdAt: { type: 'string' }, bytes: { type: 'integer' } },
      ['name', 'createdAt'],
    ),
  };
  return { paths, schemas };
}

import type { Readable } from 'node:stream';
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction,
  onRequestHookHandler,
} from 'fastify';
import type { AuthContext } from '../auth/authenticate.js';
import { ApiError } from '../errors.js';
import type { AppKind } from '../store/schema.js';
import { assertCleanText } from './clean-text.js';
import { ALLOW_METHODS } from './cors.js';
import { type Format, formatOf } from './format.js';
import { sendTree } from './reply.js';
import type { RouteSchema } from './route-schema.js';
import type { Tree, XmlObject } from './xml.js';

/** The live API's prefix; every route path below is relative to it. */
export const API_PREFIX = '/ws/v2.0';

export const ALL_KINDS: readonly AppKind[] = ['dedicated', 'widget', 'thirdParty'];
/** Resources of a user's own account (everything but the public marketplace): no widget apps. */
export const USER_KINDS: readonly AppKind[] = ['dedicated', 'thirdParty'];

/** What a route handler sees: parsed input only, never Fastify's request or reply. */
export interface ApiRequest {
  method: string;
  params: Record<string, string>;
  query: Record<string, string | string[] | undefined>;
  /** Content of the `request` element, or undefined when there was no body. */
  body: XmlObject | undefined;
  /** Set on every route that requires authentication. */
  auth: AuthContext;
  format: Format;
  ip: string;
  /** The Fastify request, for the few wire helpers that need headers or the raw URL. */
  raw: FastifyRequest;
}

export interface ApiResponse {
  status?: number;
  /** null: no body (204, 307). */
  body?: Tree | null;
  headers?: Record<string, string>;
  /**
   * A body the route rendered itself, sent as is instead of `body` (a file, or a document too large
   * to build in memory, streamed); `headers` must then give its Content-Type.
   */
  payload?: Buffer | string | Readable;
}

export type Handler = (req: ApiRequest) => Promise<ApiResponse>;

export interface RouteOptions {
  /**
   * Which app kinds may call this route (spec §5.5, the Ded/Wid/3rd columns of the reference), or
   * `'public'` for the few resources fetched without OAuth: the browser page of the authorization
   * flow, and a download link that is its own key.
   */
  kinds: readonly AppKind[] | 'public';
  /**
   * `'app'`: signed with the app's token and secret alone, `oauth_token` not looked up (the request
   * token exchange, `POST /access`); the default signs as the user the access token acts for.
   */
  signedBy?: 'app';
  /**
   * Parameters, body and answers (`src/http/route-schema.ts`): the OpenAPI document is generated
   * from these, and `test/openapi.test.ts` fails for an API route without one.
   */
  schema?: RouteSchema;
}

/** A registered route, for the OpenAPI document. */
export interface RouteDefinition {
  method: Method;
  /** Relative to the prefix, `:name` parameters. */
  path: string;
  options: RouteOptions;
}

export const ok = (body: Tree, headers?: Record<string, string>): ApiResponse => ({
  status: 200,
  body,
  headers,
});

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
const ALL_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD'] as const;

interface RouteDef {
  options: RouteOptions;
  handler: Handler;
}

/** What a route is, for the hooks that guard it (authentication, limits). */
export interface RouteConfig {
  /** Methods the resource accepts, for `Access-Control-Allow-Methods` and 405. */
  allowedMethods: string;
  /** Present on routes that require OAuth. */
  kinds?: readonly AppKind[];
  /** Signed by the app alone (see `RouteOptions.signedBy`). */
  signedByApp?: boolean;
  /** `METHOD /path` (path relative to the prefix): the key limit groups are defined by. */
  routeKey?: string;
}

/**
 * Builds the route-level hooks a route runs before its handler, in order (authentication, then
 * limits). Route-level hooks cost nothing on the routes that do not need them, and they know their
 * route without reading `request.routeOptions`, which Fastify rebuilds on every access.
 */
export type RouteHooks = (config: RouteConfig) => RouteGuard[];

/** A route-level check before the handler: throws (or rejects) to refuse the request. */
export type RouteGuard = (request: FastifyRequest, reply: FastifyReply) => Promise<void> | undefined;

/** Sets `Access-Control-Allow-Methods` for one resource (the CORS hook set the default). */
function allowMethodsHook(allowed: string): onRequestHookHandler {
  // A callback hook, not an async one: no promise on every request for a header.
  return (_request, reply, done) => {
    reply.header(ALLOW_METHODS, allowed);
    done();
  };
}

/**
 * A route's guards (authentication, faults, limits) run as one Fastify hook after the
 * `Access-Control-Allow-Methods` header is set: one hook instead of three or four saves Fastify's
 * hook iteration and a promise per hook on every request. The order and what stops the chain are
 * Fastify's own: each guard in turn, none after an error or once the reply was sent (a hijacked
 * connection). A guard may answer undefined instead of a promise when it has nothing to wait for,
 * and the hook is a callback hook, so the guards that answer at once cost no promise at all.
 */
function guardHook(
  allowed: string,
  allowHook: onRequestHookHandler,
  guards: RouteGuard[],
): onRequestHookHandler {
  if (guards.length === 0) return allowHook;
  return (request, reply, done) => {
    reply.header(ALLOW_METHODS, allowed);
    runGuards(guards, 0, request, reply, done);
  };
}

/** The guards from `i` on, then `done` (with the error of the first that refuses). */
function runGuards(
  guards: RouteGuard[],
  i: number,
  request: FastifyRequest,
  reply: FastifyReply,
  done: HookHandlerDoneFunction,
): void {
  for (; i < guards.length; i++) {
    let pending: Promise<void> | undefined;
    try {
      pending = guards[i]!(request, reply);
    } catch (err) {
      done(err as Error);
      return;
    }
    if (pending !== undefined) {
      const next = i + 1;
      pending.then(
        () => (reply.sent ? done() : runGuards(guards, next, request, reply, done)),
        (err: Error | undefined) => done(err ?? new Error('a route guard rejected without an error')),
      );
      return;
    }
    if (reply.sent) break;
  }
  done();
}

/**
 * Collects the routes of every resource module, then installs each path once per method, with
 * OPTIONS (no authentication) and a 405 for the methods the resource does not accept.
 */
export class Router {
  private readonly paths = new Map<string, Map<Method, RouteDef>>();

  private add(method: Method, path: string, options: RouteOptions, handler: Handler): void {
    let methods = this.paths.get(path);
    if (!methods) {
      methods = new Map();
      this.paths.set(path, methods);
    }
    if (methods.has(method)) throw new Error(`route ${method} ${path} is defined twice`);
    methods.set(method, { options, handler });
  }

  get(path: string, options: RouteOptions, handler: Handler) {
    this.add('GET', path, options, handler);
  }
  post(path: string, options: RouteOptions, handler: Handler) {
    this.add('POST', path, options, handler);
  }
  put(path: string, options: RouteOptions, handler: Handler) {
    this.add('PUT', path, options, handler);
  }
  delete(path: string, options: RouteOptions, handler: Handler) {
    this.add('DELETE', path, options, handler);
  }

  /**
   * The methods of the resource a path (relative to the prefix, as sent, still encoded) names, for
   * the answers given where Fastify found no route: a path it cannot decode, a method it does not
   * route (TRACE, PROPFIND, CONNECT). Static segments win over parameters, as in the router.
   */
  allowedFor(path: string): string | undefined {
    if (!this.matchers) {
      this.matchers = [...this.paths.entries()]
        .map(([pattern, methods]) => ({
          params: (pattern.match(/:/g) ?? []).length,
          re: new RegExp(`^${pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:\w+/g, '[^/]+')}/?$`),
          allowed: [...methods.keys(), 'OPTIONS'].join(', '),
        }))
        .sort((a, b) => a.params - b.params);
    }
    return this.matchers.find((m) => m.re.test(path))?.allowed;
  }
  private matchers: Array<{ params: number; re: RegExp; allowed: string }> | undefined;

  /** Every route with its options, in the order the modules registered them. */
  definitions(): RouteDefinition[] {
    const out: RouteDefinition[] = [];
    for (const [path, methods] of this.paths)
      for (const [method, def] of methods) out.push({ method, path, options: def.options });
    return out;
  }

  /** Every `METHOD /path` defined, for tables keyed by route (limit groups) to be checked against. */
  routeKeys(): string[] {
    const keys: string[] = [];
    for (const [path, methods] of this.paths) for (const m of methods.keys()) keys.push(`${m} ${path}`);
    return keys;
  }

  install(app: FastifyInstance, routeHooks: RouteHooks): void {
    for (const [path, methods] of this.paths) {
      const allowed = [...methods.keys(), 'OPTIONS'].join(', ');
      const allowHook = allowMethodsHook(allowed);
      const url = API_PREFIX + path;
      for (const [method, def] of methods) {
        const config: RouteConfig = {
          allowedMethods: allowed,
          kinds: def.options.kinds === 'public' ? undefined : def.options.kinds,
          signedByApp: def.options.signedBy === 'app',
          routeKey: `${method} ${path}`,
        };
        app.route({
          method,
          url,
          config,
          onRequest: guardHook(allowed, allowHook, routeHooks(config)),
          // runHandler's own promise, with no async wrapper around it.
          handler: (request, reply) => runHandler(def.handler, request, reply),
        });
      }
      app.route({
        method: 'OPTIONS',
        url,
        config: { allowedMethods: allowed } satisfies RouteConfig,
        onRequest: [allowHook],
        handler: async (_request, reply) => {
          reply.header('Allow', allowed).code(200).send('');
        },
      });
      const others = ALL_METHODS.filter((m) => !methods.has(m as Method));
      if (others.length > 0) {
        // Refused in the first hook, before the body is read: a wrong method is the answer whatever
        // the body (or its Content-Type) holds.
        const refuse: onRequestHookHandler = (request, _reply, done) => {
          done(
            new ApiError(405, `${request.method} is not allowed on this resource; it accepts ${allowed}.`, {
              headers: { Allow: allowed },
            }),
          );
        };
        app.route({
          method: others as unknown as string[],
          url,
          config: { allowedMethods: allowed } satisfies RouteConfig,
          onRequest: [allowHook, refuse],
          handler: async () => {},
        });
      }
    }
  }
}

async function runHandler(
  handler: Handler,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply | undefined> {
  assertCleanText(request);
  const result = await handler({
    method: request.method,
    params: request.params as Record<string, string>,
    query: request.query as Record<string, string | string[] | undefined>,
    body: request.body as XmlObject | undefined,
    auth: request.auth as AuthContext,
    format: formatOf(request.raw),
    ip: request.ip,
    raw: request,
  });
  if (result.headers) reply.headers(result.headers);
  const status = result.status ?? 200;
  if (result.payload !== undefined) {
    // Returning the reply tells Fastify a stream is still being sent (an async handler that
    // resolves to undefined before a streamed body is under way ends the response empty).
    return reply.code(status).send(result.payload);
  }
  if (result.body === null || result.body === undefined) {
    reply.code(status).send();
    return;
  }
  sendTree(request, reply, status, result.body);
}

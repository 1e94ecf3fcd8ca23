import { randomBytes } from 'node:crypto';
import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import { authenticationHook } from './auth/authenticate.js';
import { ApiError } from './errors.js';
import { checkExpect, EXPECT_LIMIT, installBodyParsing } from './http/body.js';
import { clientErrorHandlerFor, type PathMethods, rawErrorResponse } from './http/client-errors.js';
import { capConnections, installConnectionCap, timeoutOptions } from './http/connections.js';
import { countUntilClosed } from './http/in-flight.js';
import { resetAfterRestore, SandboxControl } from './http/control.js';
import { setCorsHeaders } from './http/cors.js';
import { faultHook, spoilBodyHook } from './http/faults.js';
import { hstsHeaders } from './http/hsts.js';
import { MethodTable } from './http/methods.js';
import { rewriteFormatSegment } from './http/format.js';
import { sendError } from './http/reply.js';
import { API_PREFIX, type RouteConfig, type Router as ApiRouter, Router } from './http/routing.js';
import { installRequestLog } from './http/request-log.js';
import { movedHostCheck } from './http/live-hosts.js';
import { installVersions, oldBaseAddressCheck } from './http/versions.js';
import { limitHooks } from './limits/hook.js';
import { installLimitsOperator } from './limits/operator.js';
import { installCatalogDownloads } from './routes/catalog-downloads.js';
import { installControlApi } from './routes/control.js';
import { registerRoutes } from './routes/index.js';
import { methodNotAllowedPage, notFoundPage, websitePlugin } from './web/index.js';
import type { Services } from './services.js';

// Request ids: a random per-process prefix and a counter, unique without randomness per request.
const REQUEST_ID_PREFIX = randomBytes(4).toString('hex');
// The id is the prefix and the counter in at least 8 hex digits: its last two digits come from a
// table and the rest, which changes every 256 requests, is kept, so a request builds one string
// where formatting the whole number built three.
const LAST_TWO_DIGITS = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
let requestCounter = 0;
let requestIdHead = `${REQUEST_ID_PREFIX}000000`;
const nextRequestId = () => {
  const n = ++requestCounter;
  const last = n % 256;
  if (last === 0)
    requestIdHead =
      REQUEST_ID_PREFIX +
      Math.floor(n / 256)
        .toString(16)
        .padStart(6, '0');
  return requestIdHead + LAST_TWO_DIGITS[last]!;
};

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Answers on another server too: the https listener (TLS_PORT), made with `app.routing` as its
     * request handler, gets the Expect and CONNECT handling, the timeouts and the connection cap.
     */
    alsoServeOn(server: HttpsServer): void;
  }
}

export interface BuildOptions {
  /** Registers the API's routes; tests of cross-cutting rules (limits) pass routes of their own. */
  routes?: (router: ApiRouter, services: Services) => void;
  /** Told of every route as it is registered (the browser tour lists the website's pages with it). */
  onRoute?: (route: { method: string | string[]; url: string }) => void;
}

/**
 * The HTTP application. One request takes one path through it:
 * wire (format segment, old hosts, Expect) → authentication (OAuth, app kind) → limits → body
 * parsing → route → domain → serializer, and any error on the way is rendered by the one handler below.
 */
export async function buildApp(services: Services, options: BuildOptions = {}): Promise<FastifyInstance> {
  const { config } = services;
  const router = new Router();
  (options.routes ?? registerRoutes)(router, services);
  /** The resource's methods for a raw URL Fastify found no route for. */
  const allowedForUrl = (url: string) =>
    router.allowedFor(
      url
        .split('?')[0]!
        .replace(/^\/ws\/v2\.0\/output\.(?:json|xml)(?=\/|$)/, API_PREFIX)
        .slice(API_PREFIX.length),
    );
  /** The methods of the website's pages, and of the other routes outside `/ws` (health, downloads…). */
  const pageMethods = new MethodTable();
  const otherMethods = new MethodTable();
  const isApiPath = (url: string) => /^\/ws(?:[/?]|$)/.test(url);
  const methodsOf: PathMethods = (url) => {
    if (isApiPath(url)) {
      const allowed = allowedForUrl(url);
      return allowed ? { allowed, page: false } : undefined;
    }
    const page = pageMethods.allowedFor(url);
    if (page) return { allowed: page, page: true };
    const other = otherMethods.allowedFor(url);
    return other ? { allowed: other, page: false } : undefined;
  };
  const hsts = hstsHeaders(config);
  const hstsValue = hsts['Strict-Transport-Security'];
  const app = Fastify({
    loggerInstance: services.log as FastifyBaseLogger,
    // One log line per request only when debugging: at the default level the log holds what went wrong.
    logController: new LogController({
      disableRequestLogging: config.logLevel !== 'debug' && config.logLevel !== 'trace',
    }),
    // No child logger per request unless requests are logged: a pino child costs microseconds on
    // every request, and the one error line that needs the request id writes it explicitly.
    ...(config.logLevel === 'debug' || config.logLevel === 'trace'
      ? {}
      : { childLoggerFactory: (logger: FastifyBaseLogger) => logger }),
    rewriteUrl: rewriteFormatSegment,
    bodyLimit: config.bodyLimit,
    ...timeoutOptions(config),
    exposeHeadRoutes: false,
    trustProxy: config.trustProxy,
    return503OnClosing: true,
    genReqId: nextRequestId,
    routerOptions: { maxParamLength: 500 },
    clientErrorHandler: clientErrorHandlerFor(hsts, methodsOf),
    // A path the router cannot decode (`%zz`) or a parameter over the length bound is bad input like
    // any other: the API's error body with CORS headers, not Fastify's own JSON.
    frameworkErrors: (error, request, reply) => {
      setCorsHeaders(reply);
      const allowed = allowedForUrl(request.url);
      if (allowed) reply.header('Access-Control-Allow-Methods', allowed);
      const status =
        error.code === 'FST_ERR_BAD_URL' || error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 400 : 500;
      const description =
        status === 400
          ? error.code === 'FST_ERR_BAD_URL'
            ? 'The request path is not valid: a percent sign must start a valid %XX escape.'
            : 'A path segment of the request is too long.'
          : `Internal server error. The server log has the details under request id ${request.id}.`;
      if (status === 500) request.log.error({ err: error, reqId: request.id }, 'unexpected router error');
      sendError(request, reply, status, description);
    },
  });

  const onRoute = options.onRoute;
  if (onRoute) app.addHook('onRoute', (route) => onRoute({ method: route.method, url: route.url }));
  app.addHook('onRoute', (route) => {
    if (!isApiPath(route.url)) otherMethods.add(route.method, route.url);
  });

  /**
   * What a server the app answers on needs beside Fastify's router, for its own (`app.server`) and
   * for the https listener (`alsoServeOn`, TLS_PORT): the Expect and CONNECT handling below.
   */
  const wireServer = (server: HttpServer | HttpsServer) => {
    // Node answers `Expect: 100-continue` by itself unless someone listens for it: listen, and let a
    // large body's request reach the 417 below before the client sends the body.
    server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
      const length = Number(req.headers['content-length']);
      if (length <= EXPECT_LIMIT) res.writeContinue();
      server.emit('request', req, res);
    });

    // Node answers an Expect other than 100-continue with a bare 417 of its own (no body, no CORS
    // headers), even an empty one: hand every such request to the app, where `checkExpect` decides.
    server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
      server.emit('request', req, res);
    });
    // CONNECT is no method of any resource here (this is no proxy); Node would drop the connection.
    server.on('connect', (req: IncomingMessage, socket: Duplex) => {
      const allowed = allowedForUrl(req.url ?? '/') ?? 'OPTIONS';
      socket.on('error', () => {});
      socket.end(
        rawErrorResponse(
          405,
          `CONNECT is not allowed on this resource; it accepts ${allowed}.`,
          { ...hsts, Allow: allowed, 'Access-Control-Allow-Methods': allowed },
          /\/output\.json(\/|$)/.test(req.url ?? '') ? 'json' : 'xml',
        ),
      );
    });
  };
  wireServer(app.server);
  app.decorate('alsoServeOn', (server: HttpsServer) => {
    wireServer(server);
    server.on('clientError', clientErrorHandlerFor(hsts, methodsOf));
    const timeouts = timeoutOptions(config);
    server.keepAliveTimeout = timeouts.keepAliveTimeout;
    server.requestTimeout = timeouts.requestTimeout;
    server.headersTimeout = timeouts.http.headersTimeout!;
    server.setTimeout(timeouts.connectionTimeout);
    capConnections(server, config, 'secureConnection', hsts);
  });

  installConnectionCap(app, config, hsts);
  installRequestLog(app, services);
  installVersions(app, config);
  installBodyParsing(app);

  // The sandbox's operator commands (faults, snapshot loads) reach every server through the
  // database; production has neither, and pays nothing for them.
  const control =
    config.mode === 'sandbox' ? new SandboxControl(services, () => resetAfterRestore(services)) : undefined;
  app.decorateRequest('credentialsVersion', undefined);

  // What every request goes through first, in this order, as one hook (each hook Fastify runs costs
  // its iteration on every request): counted in flight until its response closes, the CORS headers
  // (so any answer has them), the moved live host (sandbox), an old base address, the Expect header, then the sandbox's control
  // rows (not for the health check, which answers for itself whatever state the database is in).
  const countInFlight = countUntilClosed(services.requestsInFlight);
  const oldBaseAddress = oldBaseAddressCheck(config, services.wallClock);
  const movedHost = movedHostCheck(config);
  // A request no route takes (a path nobody serves, or a method its path does not take: QUERY,
  // FOO, PROPFIND…) is answered here, before its body is read or its Content-Type looked at.
  app.addHook('onRequest', (request, reply, done) => {
    countInFlight(reply.raw);
    setCorsHeaders(reply);
    if (hstsValue) reply.header('strict-transport-security', hstsValue);
    try {
      // LIVE_HOST_MOVED: the old live host answers 410 as the live one does, whatever is asked.
      if (movedHost !== undefined) movedHost(request);
      if (oldBaseAddress) oldBaseAddress(request, reply);
      checkExpect(request);
    } catch (err) {
      done(err as Error);
      return;
    }
    if (request.is404) {
      answerUnrouted(request, reply);
      return;
    }
    if (control && request.url !== '/healthz') control.checkThen(request, done);
    else done();
  });
  /** A 405 with `Allow` when the path takes other methods, else a 404: a page's, or the API's. */
  function answerUnrouted(request: FastifyRequest, reply: FastifyReply): void {
    const found = methodsOf(request.url);
    if (found?.page) {
      methodNotAllowedPage(request, reply, found.allowed);
      return;
    }
    if (found) {
      reply.header('Access-Control-Allow-Methods', found.allowed).header('Allow', found.allowed);
      sendError(
        request,
        reply,
        405,
        `${request.method} is not allowed on this resource; it accepts ${found.allowed}.`,
      );
      return;
    }
    if (!isApiPath(request.url)) {
      void notFoundPage(request, reply, services);
      return;
    }
    sendError(request, reply, 404, `There is no resource at ${request.method} ${request.url.split('?')[0]}.`);
  }
  // A fault may spoil an answer's body on its way out (sandbox only: production pays nothing).
  if (control) app.addHook('onSend', spoilBodyHook);
  const limits = limitHooks(services);
  router.install(app, (route) => {
    const faults = control ? [faultHook(services, control, route)] : [];
    return route.kinds
      ? [authenticationHook(services, route.kinds, route.signedByApp), ...faults, ...limits(route)]
      : faults;
  });
  installLimitsOperator(app, services);
  installCatalogDownloads(app, services);

  app.get('/healthz', async (_request, reply) => {
    const database = await services.database.ping();
    reply
      .header('Access-Control-Allow-Methods', 'GET')
      .code(database ? 200 : 503)
      .type('application/json; charset=utf-8')
      .send(JSON.stringify({ status: database ? 'ok' : 'unavailable', database: database ? 'up' : 'down' }));
  });

  app.setNotFoundHandler(async (request, reply) => {
    // Outside the API's `/ws` paths, an unknown address is a page nobody has: an HTML 404.
    if (!/^\/ws(?:[/?]|$)/.test(request.url)) return notFoundPage(request, reply, services);
    // A method Fastify does not route (TRACE, PROPFIND…) on a resource that exists is a wrong method.
    const allowed = allowedForUrl(request.url);
    if (allowed) {
      reply.header('Access-Control-Allow-Methods', allowed).header('Allow', allowed);
      sendError(
        request,
        reply,
        405,
        `${request.method} is not allowed on this resource; it accepts ${allowed}.`,
      );
      return;
    }
    sendError(request, reply, 404, `There is no resource at ${request.method} ${request.url.split('?')[0]}.`);
  });

  app.setErrorHandler(async (error: FastifyError | ApiError, request, reply) => {
    // An error raised before the route's own hooks ran (Expect, an old base address) still names
    // the resource's methods, as every response does (spec §1).
    const allowed = (request.routeOptions.config as Partial<RouteConfig> | undefined)?.allowedMethods;
    if (allowed) reply.header('Access-Control-Allow-Methods', allowed);
    if (error instanceof ApiError) {
      reply.headers(error.headers);
      sendError(request, reply, error.status, error.message, error.field, error.code);
      return;
    }
    const status = error.statusCode;
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      sendError(request, reply, 413, `The request body is larger than ${config.bodyLimit} bytes.`);
      return;
    }
    if (status !== undefined && status >= 400 && status < 500) {
      sendError(request, reply, status, error.message);
      return;
    }
    request.log.error({ err: error, reqId: request.id }, 'unexpected error');
    sendError(
      request,
      reply,
      500,
      `Internal server error. The server log has the details under request id ${request.id}.`,
    );
  });

  // The sandbox control API (`/_cardbazaar/`; in production, a 404 for every path under it).
  installControlApi(app, services);

  // The website: its own plugin context, so nothing of it runs on API requests. Registered last and
  // not awaited, so the API's routes are installed with the error handler above.
  app.register(websitePlugin, { services, pageMethods });

  return app;
}

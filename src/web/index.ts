import fastifyCookie, { fastifyCookie as cookies } from '@fastify/cookie';
import fastifyCsrf from '@fastify/csrf-protection';
import fastifyFormbody from '@fastify/formbody';
import fastifyStatic from '@fastify/static';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import type { MethodTable } from '../http/methods.js';
import type { Services } from '../services.js';
import { accountPages } from './accounts.js';
import { errorText } from './forms.js';
import { authorizePages } from './authorize.js';
import { docsAssets, docsPages } from './docs.js';
import { balancePages } from './balance.js';
import { cartPages } from './cart.js';
import { catalogPages } from './catalog.js';
import { homePages } from './home.js';
import { imagePages } from './images.js';
import { langFromAcceptLanguage, langOfDisplayLanguage, translator } from './i18n/index.js';
import { findSession } from '../auth/sessions.js';
import { profilePages } from './profile.js';
import { requestPages } from './requests.js';
import { webhookPages } from './webhooks.js';
import { messagePages } from './messages.js';
import { orderPages } from './orders.js';
import { stockPages } from './stock.js';
import { wantsPages } from './wants.js';
import { marketPages } from './market.js';
import { ASSETS_DIR, render } from './render.js';
import { cookieOptions, CSRF_COOKIE, SESSION_COOKIE, sessionHook, websiteCookieSecret } from './session.js';
import { pageHeaders } from './headers.js';

/**
 * The website: server-rendered pages for people (docs/using-the-website.md). One encapsulated Fastify
 * plugin, so what it adds runs on its own routes only: form bodies, cookies, sessions, CSRF checks
 * and HTML errors never touch an API request (`/ws/...` keeps XML bodies, its error body, and its
 * speed). Page groups are one module each (`accounts.ts`, `profile.ts`, `authorize.ts`, …): small
 * handlers that read the form, call the same domain functions as the API and the CLI, and render a
 * view. The route hooks they use:
 *  - `requireUser` (session.ts) on every page with private data;
 *  - `app.csrfProtection` on every POST (the form's `_csrf` field, from `it.page.csrf`).
 */

/** Form bodies are small; anything bigger is not a person typing. */
const FORM_BODY_LIMIT = 64 * 1024;

export async function websitePlugin(
  app: FastifyInstance,
  { services, pageMethods }: { services: Services; pageMethods?: MethodTable },
): Promise<void> {
  // Every page's methods, for the 405s of the methods a page does not take (`src/app.ts`).
  if (pageMethods) app.addHook('onRoute', (route) => pageMethods.add(route.method, route.url));
  const options = cookieOptions(services.config);
  app.decorate('webCookieOptions', options);
  app.decorate('imageHosts', services.config.imageHosts);
  app.decorateRequest('user', undefined);
  app.decorateRequest('sessionId', undefined);
  app.decorateRequest('unreadMessages', 0);
  app.decorateRequest('lang', 'en');
  app.decorateRequest('t', undefined as unknown as FastifyRequest['t']);

  // The API's XML parsers are inherited; pages take forms only.
  app.removeAllContentTypeParsers();
  await app.register(fastifyFormbody, { bodyLimit: FORM_BODY_LIMIT });
  app.addContentTypeParser('*', (request, _payload, done) => {
    done(
      new ApiError(
        415,
        `Forms are sent as application/x-www-form-urlencoded (got "${request.headers['content-type']}").`,
      ),
      undefined,
    );
  });

  await app.register(fastifyCookie, {
    secret: websiteCookieSecret(services.serverKey),
  });
  await app.register(fastifyCsrf, {
    sessionPlugin: '@fastify/cookie',
    cookieKey: CSRF_COOKIE,
    cookieOpts: { ...options, signed: true },
  });

  app.addHook('onRequest', (_request, reply, done) => {
    pageHeaders(reply);
    done();
  });
  app.setErrorHandler(errorPage(services));

  // Assets do not need the session: a stylesheet costs no database query.
  await app.register(async (assets) => {
    await assets.register(fastifyStatic, {
      root: ASSETS_DIR,
      prefix: '/assets/',
      maxAge: '1h',
      index: false,
    });
  });
  await app.register(docsAssets);
  // Card pictures: no session either (docs/using-the-website.md, "Card pictures").
  await app.register(async (images) => imagePages(images, services));

  await app.register(async (pages) => {
    pages.addHook('onRequest', sessionHook(services));
    homePages(pages, services);
    accountPages(pages, services);
    webhookPages(pages, services);
    profilePages(pages, services);
    authorizePages(pages, services);
    docsPages(pages);
    requestPages(pages, services);
    // Finding cards, the cart and paying (issue 17, part 1).
    catalogPages(pages, services);
    cartPages(pages, services);
    balancePages(pages, services);
    // Trading: orders, selling, messages, wants lists.
    orderPages(pages, services);
    stockPages(pages, services);
    messagePages(pages, services);
    wantsPages(pages, services);
    // The sandbox's living market (issue 34).
    marketPages(pages, services);
  });
}

/**
 * Errors on pages are pages, in the visitor's language, never the API's XML or Fastify's JSON, even
 * an error while the answer was being written (a header Node refused).
 */
export function errorPage(services: Services) {
  return async (error: FastifyError | ApiError, request: FastifyRequest, reply: FastifyReply) => {
    if (!request.t) {
      request.lang = langFromAcceptLanguage(request.headers['accept-language']);
      request.t = translator(request.lang);
    }
    let status = error instanceof ApiError ? error.status : (error.statusCode ?? 500);
    let message: string;
    if (error.code === 'FST_CSRF_INVALID_TOKEN' || error.code === 'FST_CSRF_MISSING_SECRET') {
      status = 403;
      message = request.t('error.csrf');
    } else if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      status = 413;
      message = request.t('error.tooLarge');
    } else if (status >= 500) {
      request.log.error({ err: error, reqId: request.id }, 'unexpected error on a page');
      status = 500;
      message = request.t('error.internal', { id: request.id });
    } else {
      message = error instanceof ApiError ? errorText(request.t, error) : error.message;
    }
    // Whatever the handler had set for its own answer goes: an error page redirects nowhere (and a
    // `Location` Node refused must not fail this page too).
    reply.removeHeader('Location');
    if (error instanceof ApiError) reply.headers(error.headers);
    if (services.config.mode === 'production' && status === 500)
      message = request.t('error.internal', { id: request.id });
    return render(request, reply, 'error', { title: 'error.title', status, message }, status);
  };
}

/**
 * Who is signed in, for a page answered outside the website's plugin (the 404 of an unknown path):
 * the session cookie read and checked as the plugin's hook does, so the header is the signed-in one.
 */
async function signedInUser(request: FastifyRequest, services: Services): Promise<void> {
  const raw = cookies.parse(request.headers.cookie ?? '')[SESSION_COOKIE];
  if (!raw) return;
  const unsigned = cookies.unsign(raw, websiteCookieSecret(services.serverKey));
  if (!unsigned.valid || !unsigned.value) return;
  const user = await findSession(services, unsigned.value);
  if (!user) return;
  request.user = user;
  request.lang = langOfDisplayLanguage(user.idDisplayLanguage);
}

/** The page for a path nothing answers (outside `/ws`, which keeps the API's error body). */
export async function notFoundPage(
  request: FastifyRequest,
  reply: FastifyReply,
  services?: Services,
): Promise<FastifyReply> {
  request.lang = langFromAcceptLanguage(request.headers['accept-language']);
  if (services) await signedInUser(request, services).catch(() => undefined);
  request.t = translator(request.lang);
  pageHeaders(reply);
  return render(
    request,
    reply,
    'error',
    { title: 'error.notFoundTitle', status: 404, message: request.t('error.notFound') },
    404,
  );
}

/** The page for a method a page does not take (QUERY, PUT, FOO…): 405 with `Allow`. */
export function methodNotAllowedPage(
  request: FastifyRequest,
  reply: FastifyReply,
  allowed: string,
): FastifyReply {
  request.lang = langFromAcceptLanguage(request.headers['accept-language']);
  request.t = translator(request.lang);
  pageHeaders(reply);
  reply.header('Allow', allowed);
  return render(
    request,
    reply,
    'error',
    {
      title: 'error.methodNotAllowedTitle',
      status: 405,
      message: request.t('error.methodNotAllowed', { method: request.method, allowed }),
    },
    405,
  );
}

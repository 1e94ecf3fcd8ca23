import { findAppForAuthorization } from '../auth/apps.js';
import { exchangeRequestToken } from '../auth/request-tokens.js';
import { getAccount } from '../domain/account.js';
import { badRequest, forbidden, notFound, unauthorized } from '../errors.js';
import { requireBody } from '../http/body.js';
import { text } from '../http/fields.js';
import { headerLocation } from '../http/location.js';
import { publicOrigin } from '../http/origin.js';
import { ok, type Router } from '../http/routing.js';
import { mapAccount } from '../mappers/account.js';
import type { Services } from '../services.js';
import { Type } from '@sinclair/typebox';
import { Answer, RequestBody, type RouteSchema } from '../http/route-schema.js';
import { AccountSchema } from '../mappers/account.js';

const authenticateSchema = (withLang: boolean): RouteSchema => ({
  summary: withLang
    ? 'Start the authorization flow in a language (browser)'
    : 'Start the authorization flow (browser)',
  description:
    "Where a third-party app sends a user's browser: 303 to the website's consent page. Not signed.",
  params: withLang
    ? { appToken: Type.String(), lang: Type.String({ enum: LANGUAGES }) }
    : { appToken: Type.String() },
  responses: { 303: null },
  // A dedicated or widget app's token: nothing to authorize.
  errors: [403],
});

const LANGUAGES = ['en', 'fr', 'de', 'es', 'it'];

/** The website's consent page for an app token (`src/web/authorize.ts`). */
export const consentPath = (appToken: string, lang: string) =>
  `/authorize/${encodeURIComponent(appToken)}?lang=${lang}`;

/**
 * The third-party authorization flow (reference §1.8).
 *
 * `/authenticate/:appToken[/:lang]` is where a third-party app sends a user's browser. Not an API
 * call, so not signed. Dedicated and widget apps have nothing to authorize and get 403, an unknown
 * token 404, both in the API's error body as on the real API. A third-party app's browser is sent
 * (303) to the website's consent page, which signs the user in first when needed: the API's paths
 * read no cookies, so sessions stay a thing of the website's own routes.
 *
 * `POST /access` trades the request token the consent page gave the app's callback for an access
 * token, signed with the app's token and secret alone (`signedBy: 'app'`).
 */
export function authenticateRoutes(r: Router, services: Services): void {
  const handler = async (params: Record<string, string>, raw: Parameters<typeof publicOrigin>[0]) => {
    const lang = params.lang;
    if (lang !== undefined && !LANGUAGES.includes(lang)) {
      throw notFound(`Unknown language "${lang}": use one of ${LANGUAGES.join(', ')}.`);
    }
    const app = await findAppForAuthorization(services, params.appToken ?? '');
    if (!app) throw notFound('There is no app with this app token.');
    if (app.kind !== 'thirdParty') {
      throw forbidden(`Only third-party apps use the authorization flow; this is a ${app.kind} app.`, {
        code: 'app_kind_not_allowed',
      });
    }
    const { basePath } = publicOrigin(raw, services.config);
    // Whatever else the query holds (a callback of someone's choosing) is dropped: the consent page
    // only ever sends the user back to the callback the app registered.
    return {
      status: 303,
      body: null,
      headers: {
        Location: headerLocation(basePath + consentPath(params.appToken!, lang ?? 'en')),
        'Cache-Control': 'no-store',
      },
    };
  };
  r.get('/authenticate/:appToken', { kinds: 'public', schema: authenticateSchema(false) }, async (req) =>
    handler(req.params, req.raw),
  );
  r.get('/authenticate/:appToken/:lang', { kinds: 'public', schema: authenticateSchema(true) }, async (req) =>
    handler(req.params, req.raw),
  );

  r.post(
    '/access',
    {
      kinds: ['thirdParty'],
      signedBy: 'app',
      schema: {
        summary: 'Exchange a request token for an access token',
        description:
          'Signed with the app token and secret alone: `oauth_token` empty (or the request token), key `appSecret&`.',
        body: RequestBody({
          app_key: Type.Optional(
            Type.String({ description: 'When given, the app token the request is signed with (else 401).' }),
          ),
          request_token: Type.String({
            minLength: 1,
            description: 'The request token the callback received (an unknown one: 401).',
          }),
        }),
        responses: {
          200: Answer({
            oauth_token: Type.String(),
            oauth_token_secret: Type.String(),
            account: AccountSchema,
          }),
        },
      },
    },
    async (req) => {
      const body = requireBody(req.body, '<app_key>…</app_key><request_token>…</request_token>');
      const appKey = text(body, 'app_key') ?? '';
      const requestToken = text(body, 'request_token') ?? '';
      if (requestToken === '') {
        // Bad input like any required element left out; an unknown token is the 401 below.
        throw badRequest('The request needs <request_token>: the one the callback received.', {
          field: 'request_token',
          reason: 'required',
        });
      }
      if (appKey !== '' && appKey !== req.auth.appToken) {
        throw unauthorized('<app_key> is not the app token this request is signed with.', {
          code: 'app_key_mismatch',
          field: 'app_key',
        });
      }
      const presented = req.auth.oauthToken ?? '';
      if (presented !== '' && presented !== requestToken) {
        throw unauthorized(
          'oauth_token must be empty or the request token of the body when exchanging a request token.',
          { code: 'request_token_mismatch', field: 'oauth_token' },
        );
      }
      const issued = await exchangeRequestToken(services, {
        idApp: req.auth.idApp,
        requestToken,
        tokenDays: services.config.thirdPartyTokenDays,
      });
      const account = await getAccount(services, issued.idUser);
      return ok({
        oauth_token: issued.token,
        oauth_token_secret: issued.secret,
        account: mapAccount(account),
      });
    },
  );
}

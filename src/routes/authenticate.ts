import { findAppForAuthorization } from '../auth/apps.js';
import { ApiError, forbidden, notFound } from '../errors.js';
import type { Router } from '../http/routing.js';
import type { Services } from '../services.js';

const LANGUAGES = ['en', 'fr', 'de', 'es', 'it'];

/**
 * `/authenticate/:appToken[/:lang]`: where a third-party app sends a user's browser to grant it
 * access (reference §1.8). Not an API call, so not signed. Dedicated and widget apps have nothing to
 * authorize and get 403, as on the real API.
 */
export function authenticateRoutes(r: Router, services: Services): void {
  const handler = async (params: Record<string, string>) => {
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
    throw new ApiError(
      501,
      'The browser sign-in for third-party apps is not available on this server yet. The operator can issue an access token with `cardbazaar token create --app ID --user NAME`.',
      { code: 'authorization_flow_unavailable' },
    );
  };
  r.get('/authenticate/:appToken', { kinds: 'public' }, async (req) => handler(req.params));
  r.get('/authenticate/:appToken/:lang', { kinds: 'public' }, async (req) => handler(req.params));
}

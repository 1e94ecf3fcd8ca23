import type { FastifyInstance } from 'fastify';
import { findAppForAuthorization } from '../auth/apps.js';
import { issueRequestToken } from '../auth/request-tokens.js';
import { forbidden, notFound } from '../errors.js';
import { headerLocation } from '../http/location.js';
import { publicUser } from '../domain/public-users.js';
import type { Services } from '../services.js';
import { fields } from './forms.js';
import { contentSecurityPolicy } from './headers.js';
import { render } from './render.js';
import { requireUser } from './session.js';

/** What a third-party app can do for a user: every resource the API admits third-party apps to. */
export const THIRD_PARTY_ABILITIES = [
  'consent.canAccount',
  'consent.canStock',
  'consent.canOrders',
  'consent.canCart',
  'consent.canMessages',
  'consent.canWants',
] as const;

/**
 * The callback with the request token appended (`?` or `&`, as the URL needs), as a `Location`
 * header carries it (a callback registered with characters outside ASCII is percent-encoded).
 */
export function callbackWithToken(callbackUrl: string, requestToken: string): string {
  const separator = callbackUrl.includes('?') ? (/[?&]$/.test(callbackUrl) ? '' : '&') : '?';
  return headerLocation(`${callbackUrl}${separator}request_token=${encodeURIComponent(requestToken)}`);
}

/**
 * The consent page of the third-party authorization flow, where `/ws/v2.0/authenticate/:appToken`
 * sends the browser (after the sign-in page when nobody is signed in). It names the app, its owner,
 * the signed-in user and what the app will be able to do, shows where the browser goes next, and
 * warns when that is not https. Approving sends the browser (303) to the callback the app
 * registered, with a new request token; nothing in the request can change where it goes. Declining
 * says so and goes nowhere.
 */
export function authorizePages(app: FastifyInstance, services: Services): void {
  async function thirdPartyApp(appToken: string) {
    const found = await findAppForAuthorization(services, appToken);
    if (!found) throw notFound('There is no app with this app token.', { reason: 'unknown_app' });
    if (found.kind !== 'thirdParty' || !found.callbackUrl) {
      throw forbidden('Only third-party apps use the authorization flow.', { code: 'app_kind_not_allowed' });
    }
    return found;
  }

  app.get('/authorize/:appToken', { onRequest: requireUser }, async (request, reply) => {
    const { appToken } = request.params as { appToken: string };
    const found = await thirdPartyApp(appToken);
    const owner = await publicUser(services, String(found.idUser));
    const callback = new URL(found.callbackUrl!);
    reply.header('Content-Security-Policy', contentSecurityPolicy(callback.origin, reply.server.imageHosts));
    return render(request, reply, 'authorize', {
      title: 'consent.title',
      titleParams: { app: found.name },
      appToken,
      appName: found.name,
      owner: owner.username,
      callbackUrl: found.callbackUrl,
      callbackOrigin: callback.origin,
      callbackRest: found.callbackUrl!.slice(callback.origin.length),
      secure: callback.protocol === 'https:',
      abilities: THIRD_PARTY_ABILITIES,
      tokenDays: services.config.thirdPartyTokenDays,
    });
  });

  app.post(
    '/authorize/:appToken',
    { onRequest: requireUser, preHandler: app.csrfProtection },
    async (request, reply) => {
      const { appToken } = request.params as { appToken: string };
      const found = await thirdPartyApp(appToken);
      const { decision } = fields(request, ['decision']);
      if (decision !== 'approve') {
        return render(request, reply, 'authorize-declined', { title: 'declined.title', appName: found.name });
      }
      const { requestToken } = await issueRequestToken(services, {
        idApp: found.idApp,
        idUser: request.user!.idUser,
      });
      return reply.code(303).header('Location', callbackWithToken(found.callbackUrl!, requestToken)).send();
    },
  );
}

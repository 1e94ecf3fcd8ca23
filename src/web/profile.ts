import type { FastifyInstance } from 'fastify';
import { countSessionsOfUser } from '../store/web-sessions.js';
import {
  createOwnApp,
  listAuthorizations,
  listOwnApps,
  regenerateOwnAccessToken,
  revokeAuthorization,
  revokeOwnApp,
} from '../auth/own-apps.js';
import { endAllSessions } from '../auth/sessions.js';
import { getAccount, setDisplayLanguage, setVacation } from '../domain/account.js';
import { sellerActivationStatus } from '../domain/seller-activation.js';
import { listEndpoints } from '../domain/webhooks.js';
import type { Services } from '../services.js';
import { fields, formErrors, redirectWithFlash } from './forms.js';
import { render } from './render.js';
import { requireUser, SESSION_COOKIE } from './session.js';

const APP_FIELDS = ['kind', 'name', 'callbackUrl'] as const;

/**
 * The profile page (spec §5.5: apps "are created by a logged-in user on the profile page"): the
 * account as `GET /account` shows it, display language and vacation, seller activation, the user's
 * apps with their credentials, and the apps the user authorized. Every action is a small form that
 * posts, then redirects back with a message.
 */
export function profilePages(app: FastifyInstance, services: Services): void {
  const signedIn = { onRequest: requireUser };
  const form = { onRequest: requireUser, preHandler: app.csrfProtection };
  const idOf = (params: unknown, name: string) => Number((params as Record<string, string>)[name]);

  app.get('/profile', signedIn, async (request, reply) => {
    const idUser = request.user!.idUser;
    const [account, activation, apps, authorizations, sessions, endpoints] = await Promise.all([
      getAccount(services, idUser),
      sellerActivationStatus(services, idUser),
      listOwnApps(services, idUser),
      listAuthorizations(services, idUser),
      countSessionsOfUser(services.database.db, idUser, services.clock.now()),
      listEndpoints(services, idUser),
    ]);
    return render(request, reply, 'profile', {
      title: 'profile.title',
      account,
      activation,
      apps,
      authorizations,
      sessions,
      endpoints,
      tokenDays: services.config.thirdPartyTokenDays,
    });
  });

  app.post('/profile/language', form, async (request, reply) => {
    const { idDisplayLanguage } = fields(request, ['idDisplayLanguage']);
    await setDisplayLanguage(services, request.user!.idUser, Number(idDisplayLanguage));
    // The next page speaks the new language (the user's, not this request's).
    return redirectWithFlash(reply, '/profile', 'flash.languageChanged');
  });

  app.post('/profile/vacation', form, async (request, reply) => {
    const f = fields(request, ['onVacation', 'cancelOrders', 'relistItems']);
    const onVacation = f.onVacation === 'true';
    await setVacation(
      services,
      request.user!.idUser,
      onVacation,
      f.cancelOrders === 'true',
      f.relistItems === 'true',
    );
    return redirectWithFlash(reply, '/profile', onVacation ? 'flash.vacationOn' : 'flash.vacationOff');
  });

  app.get('/profile/apps/new', signedIn, async (request, reply) => {
    const { kind } = request.query as { kind?: string };
    return render(request, reply, 'app-new', {
      title: 'apps.newTitle',
      values: { kind: kind ?? 'dedicated' },
      errors: {},
      mode: services.config.mode,
    });
  });

  app.post('/profile/apps', form, async (request, reply) => {
    const values = fields(request, APP_FIELDS);
    try {
      const issued = await createOwnApp(services, request.user!.idUser, values, services.config.mode);
      return redirectWithFlash(reply, `/profile#app-${issued.app.idApp}`, 'flash.appCreated', {
        name: issued.app.name,
      });
    } catch (err) {
      const errors = formErrors(request.t, err, APP_FIELDS);
      return render(
        request,
        reply,
        'app-new',
        { title: 'apps.newTitle', values, errors, mode: services.config.mode },
        400,
      );
    }
  });

  app.post('/profile/apps/:idApp/regenerate', form, async (request, reply) => {
    const idApp = idOf(request.params, 'idApp');
    await regenerateOwnAccessToken(services, request.user!.idUser, idApp);
    return redirectWithFlash(reply, `/profile#app-${idApp}`, 'flash.tokenRegenerated');
  });

  app.post('/profile/apps/:idApp/revoke', form, async (request, reply) => {
    const name = await revokeOwnApp(services, request.user!.idUser, idOf(request.params, 'idApp'));
    return redirectWithFlash(reply, '/profile#apps', 'flash.appRevoked', { name });
  });

  app.post('/profile/authorizations/:idAccessToken/revoke', form, async (request, reply) => {
    await revokeAuthorization(services, request.user!.idUser, idOf(request.params, 'idAccessToken'));
    return redirectWithFlash(reply, '/profile#authorized', 'flash.authorizationRevoked');
  });

  app.post('/profile/sign-out-everywhere', form, async (request, reply) => {
    const count = await endAllSessions(services, request.user!.idUser);
    reply.clearCookie(SESSION_COOKIE, { path: '/' });
    return redirectWithFlash(reply, '/login', 'flash.signedOutEverywhere', { count });
  });
}

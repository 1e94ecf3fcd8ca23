import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  createOwnApp,
  listAuthorizations,
  listOwnApps,
  regenerateOwnAccessToken,
  revokeAuthorization,
  revokeOwnApp,
} from '../auth/own-apps.js';
import { countSessions, endAllSessions } from '../auth/sessions.js';
import { getAccount, setDisplayLanguage, setVacation } from '../domain/account.js';
import { listEndpoints } from '../domain/webhooks.js';
import {
  completeSellerActivation,
  parseBankDetails,
  parseTransferAmounts,
  requestSellerActivation,
  sellerActivationStatus,
} from '../domain/seller-activation.js';
import { changePassword, signInLimitsOf } from '../auth/sign-in.js';
import type { Services } from '../services.js';
import { fields, formErrors, redirectWithFlash, type Errors, type Values } from './forms.js';
import { render } from './render.js';
import { renewCsrfSecret, requireUser, SESSION_COOKIE } from './session.js';

const APP_FIELDS = ['kind', 'name', 'callbackUrl'] as const;
const BANK_FIELDS = ['bankAccountOwner', 'iban', 'bic', 'bankName', 'phoneNumber'] as const;
const AMOUNT_FIELDS = ['amount1', 'amount2'] as const;
const PASSWORD_FIELDS = ['currentPassword', 'newPassword'] as const;

/** Which of the profile's forms failed, with what was typed (never a password) and why. */
interface FormState {
  form: 'activation' | 'transfers' | 'password';
  values: Values;
  errors: Errors;
}

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

  const showProfile = async (request: FastifyRequest, reply: FastifyReply, failed?: FormState) => {
    const idUser = request.user!.idUser;
    const [account, activation, apps, authorizations, sessions, endpoints] = await Promise.all([
      getAccount(services, idUser),
      sellerActivationStatus(services, idUser),
      listOwnApps(services, idUser),
      listAuthorizations(services, idUser),
      countSessions(services, idUser),
      listEndpoints(services, idUser),
    ]);
    return render(
      request,
      reply,
      'profile',
      {
        title: 'profile.title',
        account,
        activation,
        apps,
        authorizations,
        sessions,
        endpoints,
        tokenDays: services.config.thirdPartyTokenDays,
        failed: failed ?? null,
      },
      failed ? 400 : 200,
    );
  };

  app.get('/profile', signedIn, async (request, reply) => showProfile(request, reply));

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

  // Seller activation (the same steps as POST and PUT /account/selleractivation).
  app.post('/profile/seller-activation', form, async (request, reply) => {
    const f = fields(request, BANK_FIELDS);
    try {
      const details = parseBankDetails({
        accountOwner: f.bankAccountOwner,
        iban: f.iban,
        bic: f.bic,
        bankName: f.bankName,
        phoneNumber: f.phoneNumber,
      });
      await requestSellerActivation(services, request.user!.idUser, details);
      return redirectWithFlash(reply, '/profile#selling', 'flash.activationRequested');
    } catch (err) {
      const errors = formErrors(request.t, err, BANK_FIELDS);
      return showProfile(request, reply, { form: 'activation', values: f, errors });
    }
  });

  app.post('/profile/seller-activation/transfers', form, async (request, reply) => {
    const f = fields(request, AMOUNT_FIELDS);
    try {
      const amounts = parseTransferAmounts(f.amount1, f.amount2);
      await completeSellerActivation(services, request.user!.idUser, amounts);
      return redirectWithFlash(reply, '/profile#selling', 'flash.activationCompleted');
    } catch (err) {
      const errors = formErrors(request.t, err, AMOUNT_FIELDS);
      return showProfile(request, reply, { form: 'transfers', values: f, errors });
    }
  });

  app.post('/profile/password', form, async (request, reply) => {
    const f = fields(request, PASSWORD_FIELDS);
    try {
      await changePassword(services, signInLimitsOf(services), request.user!.idUser, {
        ...f,
        ip: request.ip,
      });
      // Every session ended with the change, this one too: sign in again with the new password.
      reply.clearCookie(SESSION_COOKIE, { path: '/' });
      renewCsrfSecret(request, reply);
      return redirectWithFlash(reply, '/login', 'flash.passwordChanged');
    } catch (err) {
      const errors = formErrors(request.t, err, PASSWORD_FIELDS);
      return showProfile(request, reply, { form: 'password', values: {}, errors });
    }
  });

  app.post('/profile/sign-out-everywhere', form, async (request, reply) => {
    const count = await endAllSessions(services, request.user!.idUser);
    reply.clearCookie(SESSION_COOKIE, { path: '/' });
    renewCsrfSecret(request, reply);
    return redirectWithFlash(reply, '/login', 'flash.signedOutEverywhere', { count });
  });
}

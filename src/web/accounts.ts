import { findAppForAuthorization } from '../auth/apps.js';
import type { FastifyInstance } from 'fastify';
import { checkPasswordReset, resetPassword } from '../auth/password-reset.js';
import { signIn, signInLimitsOf } from '../auth/sign-in.js';
import { sendLoginData } from '../domain/login-data.js';
import { REGISTRATION_FIELDS, registerAccount, registrationLimitsOf } from '../domain/registration.js';
import { COUNTRY_CODES } from '../domain/users.js';
import { ApiError } from '../errors.js';
import { headerLocation } from '../http/location.js';
import { publicOrigin } from '../http/origin.js';
import type { Services } from '../services.js';
import { fields, formErrors, localPath, redirectWithFlash } from './forms.js';
import { displayLanguageOf, type Lang } from './i18n/index.js';
import { countryName, render } from './render.js';
import { signInBrowser, signOutBrowser } from './session.js';

/** Joining, signing in and out, and a forgotten password. */
export function accountPages(app: FastifyInstance, services: Services): void {
  const csrf = app.csrfProtection;

  app.get('/register', async (request, reply) =>
    render(request, reply, 'register', {
      title: 'register.title',
      values: {},
      errors: {},
      countries: countries(request.lang),
    }),
  );

  app.post('/register', { preHandler: csrf }, async (request, reply) => {
    const form = fields(request, REGISTRATION_FIELDS);
    const limits = registrationLimitsOf(services);
    try {
      const user = await registerAccount(
        services,
        form,
        displayLanguageOf(request.lang),
        limits && { limits, ip: request.ip },
      );
      await signInBrowser(services, request, reply, user.idUser);
      return redirectWithFlash(reply, '/profile', 'flash.registered', { username: user.username });
    } catch (err) {
      const errors = formErrors(request.t, err, REGISTRATION_FIELDS);
      // Beyond the registration limits: 429 with `Retry-After`, the form and its reason on the page.
      const status = err instanceof ApiError && err.status === 429 ? 429 : 400;
      if (status === 429) reply.headers((err as ApiError).headers);
      // The password is never sent back into the page.
      const values = { ...form, password: '' };
      return render(
        request,
        reply,
        'register',
        { title: 'register.title', values, errors, countries: countries(request.lang) },
        status,
      );
    }
  });

  /**
   * The third-party flow's sign-in (`next` is its consent page, `/authorize/:appToken`): the page
   * names the app the person is signing in for, as the consent page will.
   */
  async function signingInFor(next: string): Promise<string | undefined> {
    const m = /^\/authorize\/([^/?#]{1,200})(?:[?#]|$)/.exec(next);
    if (!m) return undefined;
    const found = await findAppForAuthorization(services, decodeURIComponent(m[1]!)).catch(() => undefined);
    return found && found.kind === 'thirdParty' ? found.name : undefined;
  }

  app.get('/login', async (request, reply) => {
    const { next } = request.query as { next?: string };
    const path = localPath(next);
    return render(request, reply, 'login', {
      title: 'login.title',
      values: {},
      errors: {},
      next: path,
      forApp: await signingInFor(path),
    });
  });

  app.post('/login', { preHandler: csrf }, async (request, reply) => {
    const form = fields(request, ['username', 'password', 'next']);
    const next = localPath(form.next);
    try {
      const user = await signIn(services, signInLimitsOf(services), {
        username: form.username,
        password: form.password,
        ip: request.ip,
      });
      await signInBrowser(services, request, reply, user.idUser);
      return reply.code(303).header('Location', headerLocation(next)).send();
    } catch (err) {
      const errors = formErrors(request.t, err, ['username', 'password']);
      if (err instanceof ApiError) reply.headers(err.headers);
      const status = err instanceof ApiError && (err.status === 401 || err.status === 429) ? err.status : 400;
      return render(
        request,
        reply,
        'login',
        {
          title: 'login.title',
          values: { username: form.username },
          errors,
          next,
          forApp: await signingInFor(next),
        },
        status,
      );
    }
  });

  app.post('/logout', { preHandler: csrf }, async (request, reply) => {
    await signOutBrowser(services, request, reply);
    return redirectWithFlash(reply, '/', 'flash.signedOut');
  });

  app.get('/password/forgot', async (request, reply) =>
    render(request, reply, 'password-forgot', {
      title: 'forgot.title',
      values: {},
      errors: {},
      canMail: services.mailer !== undefined,
    }),
  );

  // The answer is the same whether the account exists or not, so the form tells nobody which do.
  app.post('/password/forgot', { preHandler: csrf }, async (request, reply) => {
    const { login } = fields(request, ['login']);
    if (login.trim() === '') {
      return render(
        request,
        reply,
        'password-forgot',
        {
          title: 'forgot.title',
          values: { login },
          errors: { login: request.t('errors.required') },
          canMail: services.mailer !== undefined,
        },
        400,
      );
    }
    // The same rule as the API's POST /account/logindata?type=password (src/domain/login-data.ts).
    const { origin, basePath } = publicOrigin(request, services.config);
    await sendLoginData(services, 'password', login, `${origin}${basePath}`);
    if (!services.mailer && services.config.mode === 'sandbox') {
      request.log.info(
        'password reset asked for without SMTP_URL: `cardbazaar user reset-link` prints a link',
      );
    }
    return redirectWithFlash(reply, '/login', services.mailer ? 'flash.resetSent' : 'flash.resetNoMail');
  });

  app.get('/password/reset/:token', async (request, reply) => {
    const { token } = request.params as { token: string };
    try {
      await checkPasswordReset(services, token);
    } catch (err) {
      const errors = formErrors(request.t, err);
      return render(
        request,
        reply,
        'password-reset',
        { title: 'reset.title', errors, valid: false, token },
        400,
      );
    }
    return render(request, reply, 'password-reset', { title: 'reset.title', errors: {}, valid: true, token });
  });

  app.post('/password/reset/:token', { preHandler: csrf }, async (request, reply) => {
    const { token } = request.params as { token: string };
    const { password } = fields(request, ['password']);
    try {
      await resetPassword(services, token, password);
      // Any session of this browser ended with all the others; it signs in with the new password.
      await signOutBrowser(services, request, reply);
      return redirectWithFlash(reply, '/login', 'flash.passwordReset');
    } catch (err) {
      const errors = formErrors(request.t, err, ['password']);
      const valid = !('_form' in errors);
      return render(request, reply, 'password-reset', { title: 'reset.title', errors, valid, token }, 400);
    }
  });
}

/** Every country, named in the page's language, by name (the API spells Germany `D`). */
const countryLists = new Map<Lang, Array<{ code: string; name: string }>>();
export function countries(lang: Lang): Array<{ code: string; name: string }> {
  let list = countryLists.get(lang);
  if (!list) {
    list = [...COUNTRY_CODES]
      .map((code) => ({ code, name: countryName(code, lang) }))
      .sort((a, b) => a.name.localeCompare(b.name, lang));
    countryLists.set(lang, list);
  }
  return list;
}

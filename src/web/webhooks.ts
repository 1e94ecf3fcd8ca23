import type { FastifyInstance, FastifyRequest } from 'fastify';
import { EVENT_KIND_NAMES } from '../domain/user-events.js';
import {
  appForWebhooks,
  createEndpoint,
  endpointAppName,
  endpointAttemptsPage,
  endpointSecret,
  NO_ANSWER,
  ownEndpoint,
  PRIVATE_ANSWER,
  removeEndpoint,
  sendAgain,
  setEndpointEnabled,
} from '../domain/webhooks.js';
import { notFound } from '../errors.js';
import type { Services } from '../services.js';
import { fields, formErrors, redirectWithFlash } from './forms.js';
import { LIST_PAGE_SIZE, pageOf, pager } from './paging.js';
import { render } from './render.js';
import { requireUser } from './session.js';

const ENDPOINT_FIELDS = ['url', 'kinds', 'enabled', 'strictOrder'] as const;

/** Ticked kinds (a checkbox per kind): none ticked is every kind. */
function postedKinds(request: FastifyRequest): string[] {
  const v = ((request.body ?? {}) as Record<string, unknown>).kinds;
  const list = Array.isArray(v) ? v : v === undefined ? [] : [v];
  return list.filter((k): k is string => typeof k === 'string');
}

/**
 * Webhook endpoints on the profile (docs/api.md, "Events and webhooks"): add one to an app, see its
 * secret and attempts, enable, disable, delete, send a delivery again. The same domain functions
 * as `cardbazaar webhook …`.
 */
export function webhookPages(app: FastifyInstance, services: Services): void {
  const signedIn = { onRequest: requireUser };
  const form = { onRequest: requireUser, preHandler: app.csrfProtection };
  const idOf = (params: unknown, name: string) => {
    const raw = (params as Record<string, string>)[name] ?? '';
    if (!/^\d{1,9}$/.test(raw)) throw notFound(`There is no ${name} ${raw}.`);
    return Number(raw);
  };
  const ownApp = async (request: FastifyRequest) => {
    const idApp = idOf(request.params, 'idApp');
    return appForWebhooks(services, request.user!.idUser, idApp);
  };
  const newPage = (
    appName: string,
    idApp: number,
    values: Record<string, unknown>,
    errors: Record<string, string>,
  ) => ({
    title: 'webhooks.newTitle' as const,
    appName,
    idApp,
    kinds: EVENT_KIND_NAMES,
    values,
    errors,
    // The hint names a loopback receiver only where such an address is accepted.
    localHint: services.webhookSettings.targets.allowPrivate,
  });

  app.get('/profile/apps/:idApp/webhooks/new', signedIn, async (request, reply) => {
    const own = await ownApp(request);
    return render(
      request,
      reply,
      'webhook-new',
      newPage(own.name, own.idApp, { url: '', kinds: [], enabled: 'true', strictOrder: '' }, {}),
    );
  });

  app.post('/profile/apps/:idApp/webhooks', form, async (request, reply) => {
    const own = await ownApp(request);
    const f = fields(request, ENDPOINT_FIELDS);
    const kinds = postedKinds(request);
    try {
      const endpoint = await createEndpoint(services, services.webhookSettings, request.user!.idUser, {
        idApp: own.idApp,
        url: f.url,
        kinds,
        enabled: f.enabled === 'true',
        strictOrder: f.strictOrder === 'true',
      });
      return redirectWithFlash(reply, `/profile/webhooks/${endpoint.idEndpoint}`, 'flash.webhookCreated');
    } catch (err) {
      const errors = formErrors(request.t, err, ENDPOINT_FIELDS);
      return render(
        request,
        reply,
        'webhook-new',
        newPage(own.name, own.idApp, { ...f, kinds }, errors),
        400,
      );
    }
  });

  app.get('/profile/webhooks/:idEndpoint', signedIn, async (request, reply) => {
    const idUser = request.user!.idUser;
    const endpoint = await ownEndpoint(services, idUser, idOf(request.params, 'idEndpoint'));
    const p = pageOf(request, LIST_PAGE_SIZE);
    const [{ attempts, total }, appName] = await Promise.all([
      endpointAttemptsPage(services, idUser, endpoint.idEndpoint, p),
      endpointAppName(services, endpoint),
    ]);
    return render(request, reply, 'webhook', {
      title: 'webhooks.title',
      endpoint,
      appName,
      kinds: endpoint.kinds === '*' ? [] : endpoint.kinds.split(','),
      secret: endpointSecret(services.serverKey, endpoint),
      // The two texts an attempt records instead of an answer's bytes, in the reader's language.
      attempts: attempts.map((a) => ({
        ...a,
        response:
          a.response === NO_ANSWER
            ? request.t('webhooks.noAnswerText')
            : a.response === PRIVATE_ANSWER
              ? request.t('webhooks.privateAnswer')
              : a.response,
      })),
      pager: pager(request, p, total),
    });
  });

  const toggle =
    (enabled: boolean) => async (request: FastifyRequest, reply: import('fastify').FastifyReply) => {
      const idEndpoint = idOf(request.params, 'idEndpoint');
      await setEndpointEnabled(services, request.user!.idUser, idEndpoint, enabled);
      return redirectWithFlash(
        reply,
        `/profile/webhooks/${idEndpoint}`,
        enabled ? 'flash.webhookEnabled' : 'flash.webhookDisabled',
      );
    };
  app.post('/profile/webhooks/:idEndpoint/enable', form, toggle(true));
  app.post('/profile/webhooks/:idEndpoint/disable', form, toggle(false));

  app.post('/profile/webhooks/:idEndpoint/delete', form, async (request, reply) => {
    const endpoint = await ownEndpoint(services, request.user!.idUser, idOf(request.params, 'idEndpoint'));
    await removeEndpoint(services, request.user!.idUser, endpoint.idEndpoint);
    return redirectWithFlash(reply, `/profile#app-${endpoint.idApp}`, 'flash.webhookDeleted');
  });

  app.post('/profile/webhooks/:idEndpoint/deliveries/:idDelivery/resend', form, async (request, reply) => {
    const idEndpoint = idOf(request.params, 'idEndpoint');
    const idDelivery = idOf(request.params, 'idDelivery');
    await ownEndpoint(services, request.user!.idUser, idEndpoint);
    await sendAgain(services, request.user!.idUser, idDelivery);
    services.webhooks.wake();
    return redirectWithFlash(reply, `/profile/webhooks/${idEndpoint}`, 'flash.webhookResent');
  });
}

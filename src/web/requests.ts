import type { FastifyInstance } from 'fastify';
import { explainSignature } from '../auth/explain.js';
import {
  getRequest,
  listRequests,
  REQUESTS_PER_PAGE,
  type RequestLogQuery,
  requestLogApps,
} from '../domain/request-log.js';
import { liveHostOrigins } from '../http/live-hosts.js';
import { pageOf } from './paging.js';
import { badRequest } from '../errors.js';
import type { Services } from '../services.js';
import { fields, formErrors } from './forms.js';
import { render } from './render.js';
import { requireUser } from './session.js';

const FILTERS = ['status', 'path', 'idApp'] as const;
const DEBUGGER_FIELDS = [
  'method',
  'url',
  'authorization',
  'consumerSecret',
  'tokenSecret',
  'clientBaseString',
] as const;
/** Longest value a debugger field takes (a header or a base string of a long query). */
const MAX_FIELD = 16 * 1024;

/** A request's number as a link gives it; anything else is a 400 saying so (not "no request 0"). */
function requestNumber(text: string): number {
  if (!/^\d{1,15}$/.test(text) || !(Number(text) > 0)) {
    throw badRequest(`"${text}" is not a request number.`, {
      reason: 'request_id_invalid',
      params: { id: text },
    });
  }
  return Number(text);
}

/**
 * The request log and the signature debugger (docs/testing-your-client.md, "The request log", "The signature
 * debugger"): a user's own API requests, newest first, each openable in full, and the server's
 * signature check laid out step by step for a request typed in or taken from the log. Another
 * user's request is 404, like one that does not exist.
 */
export function requestPages(app: FastifyInstance, services: Services): void {
  const signedIn = { onRequest: requireUser };

  app.get('/requests', signedIn, async (request, reply) => {
    const q = request.query as Record<string, unknown>;
    // A repeated parameter (`?status=1&status=2`) counts once, as in a form.
    const one = (v: unknown) => String((Array.isArray(v) ? v[0] : v) ?? '');
    const values = { status: one(q.status), path: one(q.path), idApp: one(q.idApp) };
    const model = {
      title: 'requests.title' as const,
      values,
      enabled: services.requestLog !== undefined,
      rowsPerUser: services.config.requestLogRows,
    };
    try {
      // The page as every list reads it (`web/paging.ts`): not a page number is a 400.
      const query: RequestLogQuery = { ...values, page: pageOf(request, REQUESTS_PER_PAGE).page };
      const result = await listRequests(services, request.user!.idUser, query);
      return render(request, reply, 'requests', { ...model, result, errors: {} });
    } catch (err) {
      const errors = formErrors(request.t, err, FILTERS);
      // The app filter keeps its choices, so the user's pick survives the refused form.
      const apps = await requestLogApps(services, request.user!.idUser);
      const empty = { rows: [], total: 0, page: 1, pages: 1, apps };
      return render(request, reply, 'requests', { ...model, result: empty, errors }, 400);
    }
  });

  app.get('/requests/:idRequest', signedIn, async (request, reply) => {
    const { idRequest } = request.params as { idRequest: string };
    const row = await getRequest(services, request.user!.idUser, requestNumber(idRequest));
    return render(request, reply, 'request', {
      title: 'request.title',
      titleParams: { id: row.idRequest },
      row,
    });
  });

  // The debugger is for anyone with credentials to check; only taking a request from the log needs
  // the owner signed in.
  app.get('/signature-debugger', async (request, reply) => {
    const asked = (request.query as { request?: unknown }).request;
    const fromLog = asked === undefined ? undefined : String(Array.isArray(asked) ? asked[0] : asked);
    const values: Record<string, string> = {
      method: 'GET',
      url: '',
      authorization: '',
      clientBaseString: '',
    };
    if (fromLog !== undefined) {
      await requireUser.call(app, request, reply);
      if (reply.sent) return reply;
      const row = await getRequest(services, request.user!.idUser, requestNumber(fromLog));
      values.method = row.method;
      values.url = `${row.origin ?? ''}${row.path}${row.query ? `?${row.query}` : ''}`;
      values.authorization = row.authorization ?? '';
      values.clientBaseString = '';
    }
    return render(request, reply, 'signature-debugger', {
      title: 'debugger.title',
      values,
      fromLog: fromLog !== undefined,
      errors: {},
      explanation: undefined,
    });
  });

  // A POST because the form carries secrets, which have no place in a URL; it changes nothing, so the
  // answer is the page itself rather than a redirect. The secrets are never sent back in the page.
  app.post('/signature-debugger', { preHandler: app.csrfProtection }, async (request, reply) => {
    const f = fields(request, DEBUGGER_FIELDS);
    const values = {
      method: f.method,
      url: f.url,
      authorization: f.authorization,
      clientBaseString: f.clientBaseString,
    };
    try {
      for (const name of DEBUGGER_FIELDS) {
        if (f[name].length > MAX_FIELD) {
          throw badRequest(`${name} is longer than ${MAX_FIELD} characters.`, {
            field: name,
            code: 'too_long',
          });
        }
      }
      if (!/^[A-Za-z]{1,10}$/.test(f.method.trim())) {
        throw badRequest('The method is a word such as GET or POST.', {
          field: 'method',
          code: 'invalid_method',
        });
      }
      if (f.url.trim() === '') throw badRequest('The URL is required.', { field: 'url', code: 'required' });
      if (f.authorization.trim() === '') {
        throw badRequest('The Authorization header is required.', {
          field: 'authorization',
          code: 'required',
        });
      }
    } catch (err) {
      const errors = formErrors(request.t, err, DEBUGGER_FIELDS);
      return render(
        request,
        reply,
        'signature-debugger',
        { title: 'debugger.title', values, fromLog: false, errors, explanation: undefined },
        400,
      );
    }
    const explanation = explainSignature({
      method: f.method,
      url: f.url,
      authorization: f.authorization,
      consumerSecret: f.consumerSecret,
      tokenSecret: f.tokenSecret,
      clientBaseString: f.clientBaseString,
      liveHosts: liveHostOrigins(services.config),
    });
    return render(request, reply, 'signature-debugger', {
      title: 'debugger.title',
      values,
      fromLog: false,
      errors: {},
      explanation,
    });
  });
}

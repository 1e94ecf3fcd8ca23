import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { bearerMatches, controlTokenOf } from '../auth/control-token.js';
import { advanceClock, readClock, resetClock, setClock } from '../domain/clock.js';
import { TRIGGER_FIELDS, triggerEvent } from '../domain/event-triggers.js';
import { addFault, type FaultInput, faultList, removeFaults } from '../domain/faults.js';
import { readRequestLog } from '../domain/request-log.js';
import {
  deleteSnapshot,
  listSnapshots,
  loadSnapshot,
  resetToBaseline,
  saveSnapshot,
} from '../domain/snapshots.js';
import { ApiError, badRequest, notFound } from '../errors.js';
import { setFormat } from '../http/format.js';
import { FixtureError, fixtureApps, parseFixtureText, runFixture } from '../sandbox/fixtures.js';
import type { Services } from '../services.js';

/**
 * The sandbox control API (docs/testing-your-client.md, "The control API"): what a test suite in
 * any language does to the sandbox (clock, faults, snapshots, fixtures, event triggers, the request
 * log, a reset) over HTTP, under the reserved prefix `/_cardbazaar/`, with a bearer token. Each
 * route reads its input and calls the domain function the CLI calls; nothing else happens here.
 * Production has none of it: every path under the prefix (but the limits operator's) is 404.
 */
export const CONTROL_PREFIX = '/_cardbazaar';
export const CONTROL_REALM = 'cardbazaar-control';

/** The control API's answers are JSON, errors included (the API's error body, in its JSON form). */
function asJson(request: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  setFormat(request.raw, 'json');
  done();
}

const json = (reply: FastifyReply, status: number, body: unknown) =>
  reply.code(status).type('application/json; charset=utf-8').send(JSON.stringify(body));

const YAML_TYPE = /^\s*(?:application|text)\/(?:x-)?yaml\s*(?:;|$)/i;
const JSON_TYPE = /^\s*application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/** The body as an object: JSON (or, where `yaml` allows it, YAML); no body is `{}`. */
function bodyOf(request: FastifyRequest): Record<string, unknown> {
  const raw = request.body as Buffer | undefined;
  if (!raw || raw.length === 0) return {};
  const type = request.headers['content-type'] ?? 'application/json';
  if (!JSON_TYPE.test(type)) {
    throw new ApiError(
      415,
      `The control API reads JSON bodies (Content-Type application/json), not "${type}".`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw badRequest(`The body is not valid JSON: ${(err as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw badRequest('The body is a JSON object.');
  }
  return value as Record<string, unknown>;
}

export function installControlApi(app: FastifyInstance, services: Services): void {
  if (services.config.mode !== 'sandbox') {
    // Nothing is here in production: the API's 404, not a page, for any method and any body.
    app.register(async (nothing) => {
      nothing.removeAllContentTypeParsers();
      nothing.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, _body, done) => done(null));
      nothing.route({
        method: ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'],
        url: `${CONTROL_PREFIX}/*`,
        onRequest: asJson,
        handler: async (request) => {
          throw notFound(`There is no resource at ${request.method} ${request.url.split('?')[0]}.`);
        },
      });
    });
    return;
  }
  const token = controlTokenOf(services.config, services.serverKey);
  app.register(async (control) => {
    // Bodies are read here, as JSON or YAML: the API's XML parsing is not for these routes.
    control.removeAllContentTypeParsers();
    control.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    control.addHook('onRequest', (request, _reply, done) => {
      setFormat(request.raw, 'json');
      if (!bearerMatches(request.headers.authorization, token)) {
        done(
          new ApiError(
            401,
            'The control API needs "Authorization: Bearer <controlToken>": the token printed at start, in `serve --print-credentials json` as controlToken, or CONTROL_TOKEN.',
            { headers: { 'WWW-Authenticate': `Bearer realm="${CONTROL_REALM}"` } },
          ),
        );
        return;
      }
      done();
    });

    const p = CONTROL_PREFIX;
    control.get(`${p}/health`, async (_q, reply) => json(reply, 200, { ok: true, mode: 'sandbox' }));

    control.get(`${p}/clock`, async (_q, reply) => json(reply, 200, await readClock(services)));
    control.post(`${p}/clock/advance`, async (q, reply) =>
      json(reply, 200, await advanceClock(services, bodyOf(q).by)),
    );
    control.post(`${p}/clock/set`, async (q, reply) =>
      json(reply, 200, await setClock(services, bodyOf(q).to)),
    );
    control.post(`${p}/clock/reset`, async (_q, reply) => json(reply, 200, await resetClock(services)));

    control.get(`${p}/faults`, async (_q, reply) => json(reply, 200, { faults: await faultList(services) }));
    control.post(`${p}/faults`, async (q, reply) =>
      json(reply, 201, { fault: await addFault(services, bodyOf(q) as unknown as FaultInput) }),
    );
    control.delete(`${p}/faults/:idFault`, async (q, reply) => {
      const id = (q.params as { idFault: string }).idFault;
      if (!/^\d{1,9}$/.test(id)) throw notFound(`There is no fault ${id}.`);
      await removeFaults(services, Number(id));
      return reply.code(204).send();
    });
    control.delete(`${p}/faults`, async (_q, reply) => {
      await removeFaults(services);
      return reply.code(204).send();
    });

    control.get(`${p}/snapshots`, async (_q, reply) =>
      json(reply, 200, { snapshots: listSnapshots(services) }),
    );
    control.post(`${p}/snapshots`, async (q, reply) => {
      const { name } = bodyOf(q);
      if (typeof name !== 'string')
        throw badRequest('"name" is the snapshot\u2019s name.', { field: 'name' });
      return json(reply, 201, { snapshot: await saveSnapshot(services, name) });
    });
    control.post(`${p}/snapshots/:name/load`, async (q, reply) =>
      json(reply, 200, { snapshot: await loadSnapshot(services, (q.params as { name: string }).name) }),
    );
    control.delete(`${p}/snapshots/:name`, async (q, reply) => {
      deleteSnapshot(services, (q.params as { name: string }).name);
      return reply.code(204).send();
    });

    control.post(`${p}/fixtures`, async (q, reply) => {
      const raw = q.body as Buffer | undefined;
      const type = q.headers['content-type'] ?? 'application/json';
      const format = YAML_TYPE.test(type) ? 'yaml' : JSON_TYPE.test(type) ? 'json' : undefined;
      if (!format) {
        throw new ApiError(
          415,
          `A world document is JSON (application/json) or YAML (application/yaml), not "${type}".`,
        );
      }
      try {
        const steps = parseFixtureText(raw?.toString('utf8') ?? '', format);
        const run = await runFixture(services, steps);
        return json(reply, 201, { ids: run.created, apps: await fixtureApps(services, steps, run) });
      } catch (err) {
        if (err instanceof FixtureError) throw badRequest(err.message, { field: err.field });
        throw err;
      }
    });

    control.get(`${p}/events/kinds`, async (_q, reply) =>
      json(reply, 200, { kinds: Object.keys(TRIGGER_FIELDS) }),
    );
    control.post(`${p}/events/trigger`, async (q, reply) => {
      const body = bodyOf(q);
      const override = body.override ?? {};
      if (typeof override !== 'object' || override === null || Array.isArray(override)) {
        throw badRequest('"override" is an object of field names and values.', { field: 'override' });
      }
      const events = await triggerEvent(services, String(body.kind ?? ''), {
        ...(override as Record<string, string | number | boolean>),
        // The seller whose article a simulated buyer buys, for the kinds about orders and articles.
        user: typeof body.user === 'string' ? body.user : 'demo-seller',
      });
      // `kind` beside the feed's `type`: the name the trigger was asked with.
      const mapped = events.map((e) => ({ ...e, kind: e.type }));
      return json(reply, 201, { event: mapped[0], events: mapped });
    });

    control.get(`${p}/requests`, async (q, reply) =>
      json(reply, 200, { requests: await readRequestLog(services, q.query as Record<string, string>) }),
    );

    control.post(`${p}/reset`, async (_q, reply) => {
      await resetToBaseline(services);
      return json(reply, 200, { ok: true });
    });

    // Any other path under the prefix: the API's 404 (in JSON), not the website's page.
    control.all(`${p}/*`, async (request) => {
      throw notFound(`There is no control resource at ${request.method} ${request.url.split('?')[0]}.`);
    });
  });
}

import { timingSafeEqual } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import {
  downloadableExport,
  exportFileChunks,
  exportToken,
  getExport,
  latestUserOffersExport,
  listExports,
  requestExport,
} from '../domain/exports.js';
import { ApiError, notFound } from '../errors.js';
import { idParam, integer, MAX_ID } from '../http/fields.js';
import { publicOrigin } from '../http/origin.js';
import { API_PREFIX, type ApiRequest, ok, type Router, USER_KINDS } from '../http/routing.js';
import { mapExport, mapExportAccepted } from '../mappers/export.js';
import type { Services } from '../services.js';
import { Type } from '@sinclair/typebox';
import { Answer, IdParam } from '../http/route-schema.js';
import { ExportSchema } from '../mappers/export.js';

/** The live API's status body of a 202 (`mapExportAccepted`). */
const ACCEPTED = Answer({
  mkm_error_description: Type.String(),
  http_status_code: Type.Literal(202),
  http_status_code_description: Type.Literal('Accepted'),
  rfc2616_description_link: Type.String(),
});
import type { Export } from '../store/schema.js';
import { findUserByIdOrName } from '../store/users.js';

/**
 * Exports (reference §1.3, §1.6): `POST` answers 202 with the live API's status body; `GET` shows
 * the request, whose status moves from `pending` to `finished` and then carries a `url`. The url is an unguessable link on this server
 * (`/exports/files/:idRequest/:token`), fetched without OAuth like the real API's file links,
 * shown only to the requester and valid for the 24 hours the request is listed.
 */
export function exportRoutes(r: Router, services: Services): void {
  const idUser = (req: ApiRequest) => req.auth.idUser!;

  const link = (req: ApiRequest, e: Export) => {
    if (e.status !== 'finished') return null;
    const { origin, basePath } = publicOrigin(req.raw, services.config);
    return `${origin}${basePath}${API_PREFIX}/exports/files/${e.idRequest}/${exportToken(services.serverKey, e)}`;
  };
  const entity = (req: ApiRequest, e: Export) => mapExport(e, link(req, e));

  // Asking again while the same export is pending records nothing new; the answer is the same.
  const accepted = () => ({ status: 202, body: mapExportAccepted() });

  const gameOf = (req: ApiRequest) => integer(req.query, 'idGame', { min: 1, max: MAX_ID });

  r.post(
    '/exports/stock',
    {
      kinds: USER_KINDS,
      schema: {
        summary: 'Request an export of the own stock',
        query: { idGame: Type.Integer({ minimum: 1 }) },
        responses: { 202: ACCEPTED },
      },
    },
    async (req) => {
      await requestExport(services, idUser(req), {
        type: 'stock',
        resourceId: idUser(req),
        idGame: gameOf(req),
      });
      return accepted();
    },
  );
  r.get(
    '/exports/stock',
    {
      kinds: USER_KINDS,
      schema: {
        summary: 'The stock export requests',
        responses: { 200: Answer({ stockExports: Type.Array(ExportSchema) }) },
      },
    },
    async (req) => {
      const list = await listExports(services, idUser(req), 'stock');
      return ok({ stockExports: list.map((e) => entity(req, e)) });
    },
  );
  r.get(
    '/exports/stock/:idExport',
    {
      kinds: USER_KINDS,
      schema: {
        summary: 'One stock export request',
        params: { idExport: IdParam },
        responses: { 200: Answer({ stockExports: ExportSchema }) },
      },
    },
    async (req) => {
      const e = await getExport(services, idUser(req), 'stock', idParam(req.params, 'idExport'));
      return ok({ stockExports: entity(req, e) });
    },
  );

  const target = async (req: ApiRequest) => {
    const user = await findUserByIdOrName(services.database.db, req.params.idUser ?? '');
    if (!user) throw notFound(`There is no user "${req.params.idUser}".`);
    return user;
  };
  r.post(
    '/exports/userOffers/:idUser',
    {
      kinds: USER_KINDS,
      schema: {
        summary: "Request an export of a user's offers",
        params: { idUser: Type.String({ description: 'A user id or an exact username.' }) },
        query: { idGame: Type.Integer({ minimum: 1 }) },
        responses: { 202: ACCEPTED },
      },
    },
    async (req) => {
      const user = await target(req);
      await requestExport(services, idUser(req), {
        type: 'userOffers',
        resourceId: user.idUser,
        idGame: gameOf(req),
      });
      return accepted();
    },
  );
  r.get(
    '/exports/userOffers/:idUser',
    {
      kinds: USER_KINDS,
      schema: {
        summary: "The latest export request of a user's offers",
        params: { idUser: Type.String({ description: 'A user id or an exact username.' }) },
        responses: { 200: Answer({ userOffersRequests: ExportSchema }) },
      },
    },
    async (req) => {
      const e = await latestUserOffersExport(services, idUser(req), await target(req));
      return ok({ userOffersRequests: entity(req, e) });
    },
  );
  r.get(
    '/exports/userOffers',
    {
      kinds: USER_KINDS,
      schema: {
        summary: "The export requests of users' offers",
        responses: { 200: Answer({ userOffersRequests: Type.Array(ExportSchema) }) },
      },
    },
    async (req) => {
      const list = await listExports(services, idUser(req), 'userOffers');
      return ok({ userOffersRequests: list.map((e) => entity(req, e)) });
    },
  );

  // The file behind a finished request's url. The token is the key: no OAuth, as with the real
  // API's download links. Sent gzipped as stored when the client accepts that, inflated otherwise.
  r.get(
    '/exports/files/:idRequest/:token',
    {
      kinds: 'public',
      schema: {
        summary: "The file of a finished export (the request's `url`)",
        description: 'Not signed: the link is its own key. JSON, gzipped when the client accepts it.',
        params: { idRequest: Type.String(), token: Type.String() },
        mediaType: 'application/json',
        errors: [410],
        responses: { 200: Type.Unknown({ description: 'The exported articles as a JSON document.' }) },
      },
    },
    async (req) => {
      const nothing = () => notFound('There is no export file at this address.');
      const idRequest = Number(req.params.idRequest);
      if (!/^\d{1,10}$/.test(req.params.idRequest ?? '') || idRequest > MAX_ID) throw nothing();
      const e = await downloadableExport(services, idRequest);
      if (!e || !sameToken(req.params.token ?? '', exportToken(services.serverKey, e))) throw nothing();
      if (e.expiresAt <= services.clock.now()) {
        throw new ApiError(410, 'This export expired (files are kept 24 hours); request a new one.');
      }
      if (e.status !== 'finished') throw nothing();
      const headers: Record<string, string> = {
        'Content-Type': 'application/json; charset=utf-8',
        'Content-Disposition': `attachment; filename="${e.type}-export-${e.idRequest}.json"`,
        Vary: 'Accept-Encoding',
      };
      const chunks = Readable.from(exportFileChunks(services, e.idRequest));
      if (acceptsGzip(req.raw.headers['accept-encoding'])) {
        headers['Content-Encoding'] = 'gzip';
        headers['Content-Length'] = String(e.size ?? 0);
        return { status: 200, headers, payload: chunks };
      }
      const inflated = createGunzip();
      pipeline(chunks, inflated).catch(() => {});
      return { status: 200, headers, payload: inflated };
    },
  );
}

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** `Accept-Encoding` names gzip (or `*`) without refusing it by `q=0`. */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  const value = Array.isArray(header) ? header.join(',') : (header ?? '');
  return value.split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (coding !== 'gzip' && coding !== 'x-gzip' && coding !== '*') return false;
    return !params.some((p) => /^\s*q\s*=\s*0(\.0*)?\s*$/.test(p));
  });
}

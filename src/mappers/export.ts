import type { Export, ExportType } from '../store/schema.js';
import { type Static, Type } from '@sinclair/typebox';
import { dateTimeText } from './values.js';

export const ExportSchema = Type.Object(
  {
    idRequest: Type.Integer(),
    idUser: Type.Integer(),
    status: Type.String({ enum: ['pending', 'finished'] }),
    startedAt: Type.String({
      pattern: '^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d$',
      description: 'Berlin time.',
    }),
    finishedAt: Type.String({ description: '`0000-00-00 00:00:00` until finished.' }),
    type: Type.String(),
    resourceId: Type.String(),
    url: Type.String({ description: 'Empty until finished; then a link fetched without OAuth.' }),
  },
  { $id: 'ExportRequest', description: 'An export request (reference §1.3, §1.6).' },
);

/** How the live API names each kind of export request (`type`). */
export const EXPORT_TYPE_NAMES: Record<ExportType, string> = {
  // Recorded from the live sandbox by a client's integration test.
  userOffers: 'User Inventory Export',
  // Not recorded anywhere: named after the user-offer one, in the live API's wording.
  stock: 'Stock Export',
};

/**
 * An export request (`stockExports`, `userOffersRequests`) exactly as the live API shows a user-offer
 * export (recorded by a client's integration test): `idRequest, idUser, status, startedAt,
 * finishedAt, type, resourceId, url`, the times as `YYYY-MM-DD HH:MM:SS` (Berlin), and while the
 * export is unfinished `finishedAt` `0000-00-00 00:00:00` and `url` `""`. The link is made by the
 * route (it depends on the address the client used and on the server key).
 */
export function mapExport(e: Export, url: string | null): Static<typeof ExportSchema> {
  return {
    idRequest: e.idRequest,
    idUser: e.idUser,
    status: e.status,
    startedAt: dateTimeText(e.startedAt),
    finishedAt: dateTimeText(e.status === 'finished' ? e.finishedAt : null),
    type: EXPORT_TYPE_NAMES[e.type],
    resourceId: String(e.resourceId),
    url: url ?? '',
  };
}

/**
 * What `POST /exports/…` answers with its 202, exactly as recorded from the live API: the status
 * fields alone (no error code, no field, not the request; `GET` shows the request).
 */
export function mapExportAccepted() {
  return {
    mkm_error_description:
      'The request has been accepted for processing, but the processing has not been completed.',
    http_status_code: 202,
    http_status_code_description: 'Accepted',
    rfc2616_description_link: 'https://www.rfc-editor.org/rfc/rfc9110.html#name-status-codes',
  };
}

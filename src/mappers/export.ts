import type { Export } from '../store/schema.js';
import { timestamp } from './values.js';

/**
 * An export request (`stockExports`, `userOffersRequests`), with the fields real clients read:
 * `idRequest`, `status` (`pending`, then `finished`), `startedAt`, and `url` once finished. The
 * link is made by the route (it depends on the address the client used and on the server key).
 */
export function mapExport(e: Export, url: string | null) {
  return {
    idRequest: e.idRequest,
    idUser: e.idUser,
    status: e.status,
    startedAt: timestamp(e.startedAt),
    finishedAt: timestamp(e.finishedAt),
    type: e.type,
    resourceId: String(e.resourceId),
    idGame: e.idGame,
    url,
  };
}

import { FEED_PAGE, readEventFeed } from '../domain/user-events.js';
import { integer, MAX_ID } from '../http/fields.js';
import { pagedResponse } from '../http/pagination.js';
import { type Router, USER_KINDS } from '../http/routing.js';
import { Type } from '@sinclair/typebox';
import { Answer } from '../http/route-schema.js';
import { EventSchema, mapEvent } from '../mappers/event.js';
import type { Services } from '../services.js';

/**
 * The event feed (an extension; docs/api.md, "Events and webhooks"): the caller's events after
 * `since`, oldest first, at most `maxResults` (default and at most 100). 206 while more follow
 * (`Content-Range: 0-(n-1)/remaining`), 200 for the rest, 204 when there is nothing new: a client
 * asks again with the last `idEvent` it saw.
 */
export function eventRoutes(r: Router, services: Services): void {
  const schema = {
    summary: "The caller's public events after `since`, oldest first (an extension)",
    query: {
      since: Type.Integer({
        minimum: 0,
        maximum: MAX_ID,
        description: 'The last `idEvent` seen (default 0).',
      }),
      maxResults: Type.Integer({
        minimum: 1,
        maximum: FEED_PAGE,
        description: 'Events per answer (default 100).',
      }),
    },
    paginated: true,
    responses: { 200: Answer({ event: Type.Array(EventSchema) }) },
  };
  r.get('/events', { kinds: USER_KINDS, schema }, async (req) => {
    const since = integer(req.query, 'since', { min: 0, max: MAX_ID }) ?? 0;
    const limit = integer(req.query, 'maxResults', { min: 1, max: FEED_PAGE }) ?? FEED_PAGE;
    const { total, events } = await readEventFeed(services, req.auth.idUser!, since, limit);
    const page = { offset: 0, limit, paginated: true, form: 'query' as const };
    return pagedResponse(req, services.config, page, total, events.length, () => ({
      event: events.map(mapEvent),
    }));
  });
}

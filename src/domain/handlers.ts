import { EVENTS, type EventDispatcher } from './events.js';
import { alertWantsOfListedArticles } from './want-alerts.js';
import { startExportBuild } from './exports.js';
import { registerPriceGuideHandlers } from './priceguide.js';

/**
 * Who reacts to which event. Each feature that reacts to an event registers its handler here, so
 * the list of everything the marketplace does on its own is in one place.
 */
export function registerEventHandlers(events: EventDispatcher): void {
  // A newly available or cheaper article: tell the users whose wants it matches (mail alert).
  events.onBatch(EVENTS.articleListed, alertWantsOfListedArticles);
  events.on(EVENTS.exportRequested, (ctx, tx, payload) =>
    startExportBuild(ctx, tx, (payload as { idRequest: number }).idRequest),
  );
  registerPriceGuideHandlers(events);
}

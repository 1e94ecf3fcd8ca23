import { EVENTS, type EventDispatcher } from './events.js';
import { startExportBuild } from './exports.js';

/**
 * Who reacts to which event. Each feature that reacts to an event registers its handler here, so
 * the list of everything the marketplace does on its own is in one place.
 */
export function registerEventHandlers(events: EventDispatcher): void {
  events.on(EVENTS.exportRequested, (ctx, tx, payload) =>
    startExportBuild(ctx, tx, (payload as { idRequest: number }).idRequest),
  );
}

import type { EventDispatcher } from './events.js';
import { registerPriceGuideHandlers } from './priceguide.js';

/**
 * Who reacts to which event. Each feature that reacts to an event registers its handler here, so
 * the list of everything the marketplace does on its own is in one place.
 */
export function registerEventHandlers(events: EventDispatcher): void {
  registerPriceGuideHandlers(events);
}

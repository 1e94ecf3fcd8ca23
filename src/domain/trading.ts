import type { Config } from '../config.js';
import type { DomainContext } from './context.js';

/** What the cart and order rules need beyond the store and the clock: their two settings. */
export interface TradingContext extends DomainContext {
  config: Pick<Config, 'reservationExpiryMs' | 'cancelWaitingPeriodMs' | 'lostWaitPeriodMs'>;
}

/** Most articles one `PUT /shoppingcart` may name (spec §8). */
export const MAX_CART_ARTICLES = 100;

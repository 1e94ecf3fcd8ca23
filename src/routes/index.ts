import type { Router } from '../http/routing.js';
import type { Services } from '../services.js';
import { accountRoutes } from './account.js';
import { authenticateRoutes } from './authenticate.js';
import { messageRoutes } from './messages.js';
import { wantslistRoutes } from './wantslists.js';
import { exportRoutes } from './exports.js';
import { stockRoutes } from './stock.js';
import { orderRoutes } from './orders.js';
import { shoppingCartRoutes } from './shopping-cart.js';
import { catalogRoutes } from './catalog.js';
import { catalogFileRoutes } from './catalog-files.js';
import { marketplaceRoutes } from './marketplace.js';
import { eventRoutes } from './events.js';
import { openApiRoutes } from './openapi.js';

/** Every resource group of the API; each module adds its routes to the one router. */
export function registerRoutes(router: Router, services: Services): void {
  accountRoutes(router, services);
  authenticateRoutes(router, services);
  messageRoutes(router, services);
  wantslistRoutes(router, services);
  stockRoutes(router, services);
  exportRoutes(router, services);
  shoppingCartRoutes(router, services);
  orderRoutes(router, services);
  catalogRoutes(router, services);
  marketplaceRoutes(router, services);
  catalogFileRoutes(router, services);
  eventRoutes(router, services);
  openApiRoutes(router, services);
}

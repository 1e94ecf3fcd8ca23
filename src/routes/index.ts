import type { Router } from '../http/routing.js';
import type { Services } from '../services.js';
import { accountRoutes } from './account.js';
import { catalogRoutes } from './catalog.js';
import { catalogFileRoutes } from './catalog-files.js';
import { marketplaceRoutes } from './marketplace.js';

/** Every resource group of the API; each module adds its routes to the one router. */
export function registerRoutes(router: Router, services: Services): void {
  accountRoutes(router, services);
  catalogRoutes(router, services);
  marketplaceRoutes(router, services);
  catalogFileRoutes(router, services);
}

import type { Router } from '../http/routing.js';
import type { Services } from '../services.js';
import { accountRoutes } from './account.js';
import { exportRoutes } from './exports.js';
import { stockRoutes } from './stock.js';

/** Every resource group of the API; each module adds its routes to the one router. */
export function registerRoutes(router: Router, services: Services): void {
  accountRoutes(router, services);
  stockRoutes(router, services);
  exportRoutes(router, services);
}

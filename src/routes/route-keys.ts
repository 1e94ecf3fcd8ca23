import type { Config } from '../config.js';
import { Router } from '../http/routing.js';
import type { Services } from '../services.js';
import { registerRoutes } from './index.js';

const cache = new WeakMap<Config, readonly string[]>();

/**
 * Every `METHOD /path` the API registers under this configuration (registering reads only the
 * configuration, as `cardbazaar openapi` does), for checks that must name a route that exists: a
 * fault's path pattern (src/domain/faults.ts).
 */
export function apiRouteKeys(config: Config): readonly string[] {
  let keys = cache.get(config);
  if (!keys) {
    const router = new Router();
    registerRoutes(router, { config } as Services);
    keys = router.routeKeys();
    cache.set(config, keys);
  }
  return keys;
}

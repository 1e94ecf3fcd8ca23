import type { RouteConfig, RouteGuard } from '../http/routing.js';
import type { Services } from '../services.js';
import { BerlinDays } from './berlin-day.js';
import { concurrentRequest, nextLockToken, releaseWhenDone } from './concurrency.js';
import { groupOf, MARKETPLACE_GROUPS } from './groups.js';
import { setLimitHeaders } from './headers.js';
import { dailyQuotaReached, hasQuota, marketplaceCapReached, OwnerQuotas } from './quota.js';
import { minuteOf, restOfMinute, slowDown } from './rate.js';
import {
  ALLOWED,
  CONCURRENCY_BUSY,
  DAILY_QUOTA_EXCEEDED,
  lockKey,
  MARKETPLACE_CAP_EXCEEDED,
  RATE_EXCEEDED,
} from './store.js';

/**
 * The limits, as a route-level hook that runs right after authentication (it needs to know the app
 * and the user) and before the body is read or the route runs, so a refused request costs little and
 * changes nothing. Everything a route's hook needs that does not change per request (its group, the
 * settings) is looked up once, when the route is installed.
 *
 * Returns the hooks for a route: none when LIMITS_ENABLED is false, so then they cost nothing.
 */
export function limitHooks(services: Services): (route: RouteConfig) => RouteGuard[] {
  const { config } = services;
  if (!config.limitsEnabled) return () => [];
  const days = new BerlinDays();
  const quotas = new OwnerQuotas(services);
  const restrictedGroups = new Set(config.limitsConcurrentGroups);
  const rateMax = config.limitsPerMinute;
  const lockTtlMs = config.limitsLockTtlSeconds * 1000;

  return (route) => {
    const routeKey = route.routeKey ?? '';
    const group = groupOf(routeKey);
    if (group === undefined) {
      // test/limits-groups.test.ts keeps this from shipping; meanwhile the route is counted as a
      // request of no group: the overall quota and the rate, no marketplace cap, no concurrency rule.
      services.log.warn({ routeKey }, 'route without a limit group (add it to src/limits/groups.ts)');
    }
    const marketplace = group !== undefined && MARKETPLACE_GROUPS.has(group);
    const restricted = group !== undefined && restrictedGroups.has(group);

    const hook: RouteGuard = async (request, reply) => {
      const auth = request.auth!;
      const now = services.clock.now();
      const day = days.at(now);
      const minute = minuteOf(now);
      let dayMax = 0;
      if (hasQuota(auth.kind)) dayMax = quotas.cached(auth.idOwner) ?? (await quotas.load(auth.idOwner));
      const place = restricted ? lockKey(group!, request.ip) : '';
      const token = restricted ? nextLockToken() : '';

      // Read per request, not captured: a test swaps the store to show what an unreachable one does.
      const store = services.limits;
      const { outcome, dayCount } = await store.charge({
        idUser: auth.idUser ?? auth.idOwner,
        idApp: auth.idApp,
        minute,
        rateMax,
        rateTtlMs: restOfMinute(now),
        day: day.key,
        dayMax,
        marketplaceMax: marketplace && dayMax > 0 ? config.limitsDailyMarketplace : 0,
        dayTtlMs: day.end - now,
        lockKey: place,
        lockToken: token,
        lockTtlMs,
      });
      if (dayMax > 0) setLimitHeaders(reply, dayCount, dayMax);

      switch (outcome) {
        case ALLOWED:
          if (restricted) {
            releaseWhenDone(request, reply, () => {
              store.release(place, token).catch(() => {});
            });
          }
          return;
        case RATE_EXCEEDED:
          throw slowDown(restOfMinute(now));
        case DAILY_QUOTA_EXCEEDED:
          throw dailyQuotaReached(dayMax, day.end, now);
        case MARKETPLACE_CAP_EXCEEDED:
          throw marketplaceCapReached(config.limitsDailyMarketplace, day.end, now);
        case CONCURRENCY_BUSY:
          throw concurrentRequest(group!);
      }
    };
    return [hook];
  };
}

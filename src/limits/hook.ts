import type { RouteConfig, RouteGuard } from '../http/routing.js';
import type { Services } from '../services.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { BerlinDays, type QuotaDay } from './berlin-day.js';
import { concurrentRequest, nextLockToken, releaseWhenDone } from './concurrency.js';
import { groupOf, MARKETPLACE_GROUPS } from './groups.js';
import { setLimitHeaders } from './headers.js';
import { dailyQuotaReached, hasQuota, marketplaceCapReached, OwnerQuotas } from './quota.js';
import { minuteOf, restOfMinute, slowDown } from './rate.js';
import {
  ALLOWED,
  type Charge,
  type ChargeResult,
  CONCURRENCY_BUSY,
  type LimitStore,
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

    // Nothing to wait for when the owner's quota is cached and the store is in memory (nearly
    // always): then no promise at all, and a refusal is thrown as it is found.
    const hook: RouteGuard = (request, reply) => {
      const auth = request.auth!;
      const now = services.clock.now();
      if (!hasQuota(auth.kind)) return charge(request, reply, now, 0);
      const cached = quotas.cached(auth.idOwner);
      if (cached !== undefined) return charge(request, reply, now, cached);
      return quotas.load(auth.idOwner).then((dayMax) => charge(request, reply, now, dayMax));
    };

    function charge(
      request: FastifyRequest,
      reply: FastifyReply,
      now: number,
      dayMax: number,
    ): Promise<void> | undefined {
      const auth = request.auth!;
      const day = days.at(now);
      const minute = minuteOf(now);
      const place = restricted ? lockKey(group!, request.ip) : '';
      const token = restricted ? nextLockToken() : '';

      // Read per request, not captured: a test swaps the store to show what an unreachable one does.
      const store = services.limits;
      const c: Charge = {
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
      };
      if (store.chargeNow) {
        settle(request, reply, store, now, day, dayMax, place, token, store.chargeNow(c));
        return undefined;
      }
      return store.charge(c).then((result) => {
        settle(request, reply, store, now, day, dayMax, place, token, result);
      });
    }

    /** Sets the limit headers, and takes the place or throws the refusal. */
    function settle(
      request: FastifyRequest,
      reply: FastifyReply,
      store: LimitStore,
      now: number,
      day: QuotaDay,
      dayMax: number,
      place: string,
      token: string,
      { outcome, dayCount }: ChargeResult,
    ): void {
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
    }
    return [hook];
  };
}

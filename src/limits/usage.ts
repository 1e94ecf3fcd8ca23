import { formatTimestamp } from '../format.js';
import type { Services } from '../services.js';
import type { User } from '../store/schema.js';
import { BerlinDays } from './berlin-day.js';
import { accountTypeName, dailyQuota } from './quota.js';
import { minuteOf } from './rate.js';

/** What `cardbazaar limits show` prints: a user's counts against every limit, as the server keeps them. */
export interface UsageReport {
  user: string;
  idUser: number;
  accountType: string;
  /** Where the counts live: `redis` (shared by every instance) or `memory` (of one server process). */
  store: 'redis' | 'memory';
  /** The Berlin date the daily counts belong to, and when they start again. */
  day: string;
  resetsAt: string;
  /** Requests of the user's dedicated apps today, against the quota of the account type. */
  daily: { count: number; max: number };
  /** The part of them made to the marketplace group, against its cap. */
  marketplace: { count: number; max: number };
  /** Requests in the current minute, per app token acting for the user. */
  perMinute: { max: number; apps: Array<{ idApp: number; count: number }> };
}

const days = new BerlinDays();

export async function usageReport(services: Services, user: User): Promise<UsageReport> {
  const now = services.clock.now();
  const day = days.at(now);
  const usage = await services.limits.usage(user.idUser, day.key, minuteOf(now));
  const { config } = services;
  return {
    user: user.username,
    idUser: user.idUser,
    accountType: accountTypeName(user.isCommercial),
    store: services.redis ? 'redis' : 'memory',
    day: day.key,
    resetsAt: formatTimestamp(day.end),
    daily: { count: usage.dayCount, max: dailyQuota(config, user.isCommercial) },
    marketplace: { count: usage.marketplaceCount, max: config.limitsDailyMarketplace },
    perMinute: { max: config.limitsPerMinute, apps: usage.perMinute },
  };
}

/** Clears a user's counts (the minute's and the day's) and reports them afresh. */
export async function resetUsage(services: Services, user: User): Promise<UsageReport> {
  await services.limits.reset(user.idUser);
  return usageReport(services, user);
}

import type { Config } from '../config.js';
import { ApiError } from '../errors.js';
import { formatTimestamp } from '../format.js';
import type { Services } from '../services.js';
import type { AppKind } from '../store/schema.js';
import { findUserById } from '../store/users.js';
import { retryAfterSeconds } from './rate.js';

/**
 * Daily quotas (reference §5; spec §8): a dedicated app may make as many requests a day as its
 * owner's account type allows; widget and third-party apps are unlimited. Requests of the
 * marketplace group are also capped on their own, so a dedicated app cannot spend its whole
 * quota reading the public marketplace while orders and stock still work with what remains.
 * The day runs from midnight to midnight Europe/Berlin (`berlin-day.ts`).
 */

const ACCOUNT_TYPE_NAMES = ['private', 'professional', 'powerseller'] as const;

/** The daily quota for an account type (`isCommercial`: 0 private, 1 professional, 2 powerseller). */
export function dailyQuota(config: Config, isCommercial: number): number {
  if (isCommercial === 2) return config.limitsDailyPowerseller;
  if (isCommercial === 1) return config.limitsDailyProfessional;
  return config.limitsDailyPrivate;
}

export const accountTypeName = (isCommercial: number) => ACCOUNT_TYPE_NAMES[isCommercial] ?? 'private';

/** Whether requests of this app kind count against a daily quota (and carry the limit headers). */
export const hasQuota = (kind: AppKind) => kind === 'dedicated';

const OWNER_TTL_MS = 5000;
const MAX_OWNERS = 10_000;

/**
 * The quota of each app owner, kept for a few seconds like the credentials, so the hot path reads a
 * Map instead of the users table; a change of account type takes effect within OWNER_TTL_MS.
 */
export class OwnerQuotas {
  private readonly owners = new Map<number, { max: number; until: number }>();

  constructor(private readonly services: Pick<Services, 'config' | 'database' | 'wallClock'>) {}

  cached(idOwner: number): number | undefined {
    const entry = this.owners.get(idOwner);
    return entry !== undefined && entry.until > this.services.wallClock.now() ? entry.max : undefined;
  }

  async load(idOwner: number): Promise<number> {
    const owner = await findUserById(this.services.database.db, idOwner);
    const max = dailyQuota(this.services.config, owner?.isCommercial ?? 0);
    if (this.owners.size >= MAX_OWNERS) this.owners.clear();
    this.owners.set(idOwner, { max, until: this.services.wallClock.now() + OWNER_TTL_MS });
    return max;
  }
}

export function dailyQuotaReached(max: number, resetsAt: number, now: number): ApiError {
  return new ApiError(
    429,
    `Daily request limit reached: this app may make ${max} requests a day. The count starts again at midnight Europe/Berlin (${formatTimestamp(resetsAt)}).`,
    { code: 'daily_limit_reached', headers: { 'Retry-After': String(retryAfterSeconds(resetsAt - now)) } },
  );
}

export function marketplaceCapReached(max: number, resetsAt: number, now: number): ApiError {
  return new ApiError(
    429,
    `Daily marketplace limit reached: at most ${max} requests a day to the marketplace resources (games, expansions, products, articles, users, metaproducts, price guide); other resources (account, stock, orders, …) still work. The count starts again at midnight Europe/Berlin (${formatTimestamp(resetsAt)}).`,
    {
      code: 'marketplace_limit_reached',
      headers: { 'Retry-After': String(retryAfterSeconds(resetsAt - now)) },
    },
  );
}

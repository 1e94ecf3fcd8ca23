import type { Redis } from 'ioredis';
import type { AttemptKey, AttemptResult, Charge, ChargeResult, LimitStore, Outcome, Usage } from './store.js';
import { storeUnavailable } from './store.js';

/**
 * One charge in one round trip and one atomic step: a Lua script checks every limit, then counts
 * and takes the concurrency place only if none refused (see `LimitStore`). Keys carry their window
 * (the minute, the Berlin date), so a new window starts from zero without a reset; their TTL ends
 * with the window, only to free the memory.
 *
 * KEYS: rate, day, marketplace, lock.
 * ARGV: rateMax, rateTtlMs, dayMax (0: no quota), dayTtlMs, marketplaceMax (0: not counted),
 *       lockToken ('': unrestricted route), lockTtlMs.
 * Answers {outcome, dayCount}.
 */
const CHARGE = `
local rate = tonumber(redis.call('GET', KEYS[1]) or '0')
local dayMax = tonumber(ARGV[3])
local marketplaceMax = tonumber(ARGV[5])
local day = 0
if dayMax > 0 then day = tonumber(redis.call('GET', KEYS[2]) or '0') end
if rate >= tonumber(ARGV[1]) then return {1, day} end
if dayMax > 0 then
  if day >= dayMax then return {2, day} end
  if marketplaceMax > 0 and tonumber(redis.call('GET', KEYS[3]) or '0') >= marketplaceMax then
    return {3, day}
  end
end
if ARGV[6] ~= '' then
  if not redis.call('SET', KEYS[4], ARGV[6], 'NX', 'PX', ARGV[7]) then return {4, day} end
end
if redis.call('INCR', KEYS[1]) == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if dayMax > 0 then
  day = redis.call('INCR', KEYS[2])
  if day == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[4]) end
  if marketplaceMax > 0 and redis.call('INCR', KEYS[3]) == 1 then
    redis.call('PEXPIRE', KEYS[3], ARGV[4])
  end
end
return {0, day}
`;

/** Frees a place only if it is still ours: after a TTL expiry it may belong to another request. */
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

/**
 * KEYS: the attempt counters. ARGV: windowMs, then each key's max. Answers {1, 0} when counted, or
 * {0, ms until the refusing key's window ends}.
 */
const ATTEMPT = `
for i, key in ipairs(KEYS) do
  if tonumber(redis.call('GET', key) or '0') >= tonumber(ARGV[i + 1]) then
    return {0, redis.call('PTTL', key)}
  end
end
for _, key in ipairs(KEYS) do
  if redis.call('INCR', key) == 1 then redis.call('PEXPIRE', key, ARGV[1]) end
end
return {1, 0}
`;

/** KEYS: one counter. ARGV: '1' to clear it, else take one attempt back. */
const FORGET_ATTEMPT = `
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if ARGV[1] == '1' or n <= 1 then return redis.call('DEL', KEYS[1]) end
return redis.call('DECR', KEYS[1])
`;

interface ScriptCommands {
  cardbazaarAttempt(...args: Array<string | number>): Promise<[number, number]>;
  cardbazaarForgetAttempt(key: string, all: string): Promise<number>;
  cardbazaarLimitsCharge(...args: Array<string | number>): Promise<[number, number]>;
  cardbazaarLimitsRelease(key: string, token: string): Promise<number>;
}

/** Escapes the glob characters of a prefix for SCAN MATCH. */
const globEscape = (s: string) => s.replace(/[*?[\]\\]/g, '\\$&');

export class RedisLimitStore implements LimitStore {
  private readonly commands: ScriptCommands;

  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'cardbazaar:limits:',
  ) {
    // defineCommand sends EVALSHA and falls back to EVAL once when Redis lacks the script.
    redis.defineCommand('cardbazaarLimitsCharge', { numberOfKeys: 4, lua: CHARGE });
    redis.defineCommand('cardbazaarLimitsRelease', { numberOfKeys: 1, lua: RELEASE });
    redis.defineCommand('cardbazaarForgetAttempt', { numberOfKeys: 1, lua: FORGET_ATTEMPT });
    this.commands = redis as unknown as ScriptCommands;
  }

  private userKey(idUser: number): string {
    return `${this.prefix}u:${idUser}:`;
  }

  async charge(c: Charge): Promise<ChargeResult> {
    const user = this.userKey(c.idUser);
    let result: [number, number];
    try {
      result = await this.commands.cardbazaarLimitsCharge(
        `${user}rate:${c.idApp}:${c.minute}`,
        `${user}day:${c.day}`,
        `${user}mp:${c.day}`,
        c.lockKey === '' ? `${this.prefix}lock:` : `${this.prefix}lock:${c.lockKey}`,
        c.rateMax,
        Math.max(1, c.rateTtlMs),
        c.dayMax,
        Math.max(1, c.dayTtlMs),
        c.marketplaceMax,
        c.lockToken,
        c.lockTtlMs,
      );
    } catch {
      throw storeUnavailable();
    }
    return { outcome: result[0] as Outcome, dayCount: result[1] };
  }

  async release(lockKey: string, token: string): Promise<void> {
    try {
      await this.commands.cardbazaarLimitsRelease(`${this.prefix}lock:${lockKey}`, token);
    } catch {
      // The place expires by its TTL; refusing the (already answered) request would help nobody.
    }
  }

  async attempt(keys: readonly AttemptKey[], windowMs: number): Promise<AttemptResult> {
    if (!this.attemptScriptFor.has(keys.length)) {
      // The number of keys is part of a command's definition: one per arity (sign-in uses two).
      this.redis.defineCommand(`cardbazaarAttempt${keys.length}`, {
        numberOfKeys: keys.length,
        lua: ATTEMPT,
      });
      this.attemptScriptFor.add(keys.length);
    }
    let result: [number, number];
    try {
      const command = (this.redis as unknown as Record<string, ScriptCommands['cardbazaarAttempt']>)[
        `cardbazaarAttempt${keys.length}`
      ]!;
      result = await command.call(
        this.redis,
        ...keys.map((k) => `${this.prefix}attempt:${k.key}`),
        Math.max(1, windowMs),
        ...keys.map((k) => k.max),
      );
    } catch {
      throw storeUnavailable();
    }
    return { allowed: result[0] === 1, retryAfterMs: result[0] === 1 ? 0 : Math.max(0, result[1]) };
  }
  private readonly attemptScriptFor = new Set<number>();

  async forgetAttempt(key: string, all = false): Promise<void> {
    try {
      await this.commands.cardbazaarForgetAttempt(`${this.prefix}attempt:${key}`, all ? '1' : '0');
    } catch {
      throw storeUnavailable();
    }
  }

  async countAttempts(key: string): Promise<number> {
    try {
      return Number((await this.redis.get(`${this.prefix}attempt:${key}`)) ?? 0);
    } catch {
      throw storeUnavailable();
    }
  }

  async usage(idUser: number, day: string, minute: number): Promise<Usage> {
    const user = this.userKey(idUser);
    try {
      const [dayCount, marketplaceCount] = await this.redis.mget(`${user}day:${day}`, `${user}mp:${day}`);
      const rateKeys = await this.scan(`${globEscape(user)}rate:*:${minute}`);
      const counts = rateKeys.length > 0 ? await this.redis.mget(...rateKeys) : [];
      const perMinute = rateKeys
        .map((key, i) => ({
          idApp: Number(key.slice(`${user}rate:`.length).split(':')[0]),
          count: Number(counts[i] ?? 0),
        }))
        .filter((r) => r.count > 0)
        .sort((a, b) => a.idApp - b.idApp);
      return {
        day,
        dayCount: Number(dayCount ?? 0),
        marketplaceCount: Number(marketplaceCount ?? 0),
        perMinute,
      };
    } catch {
      throw storeUnavailable();
    }
  }

  async reset(idUser: number): Promise<void> {
    try {
      const keys = await this.scan(`${globEscape(this.userKey(idUser))}*`);
      for (let i = 0; i < keys.length; i += 500) await this.redis.del(...keys.slice(i, i + 500));
    } catch {
      throw storeUnavailable();
    }
  }

  private async scan(match: string): Promise<string[]> {
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await this.redis.scan(cursor, 'MATCH', match, 'COUNT', 1000);
      cursor = next;
      keys.push(...batch);
    } while (cursor !== '0');
    return [...new Set(keys)];
  }

  async close(): Promise<void> {}
}

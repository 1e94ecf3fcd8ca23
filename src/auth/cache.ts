import type { AccessToken, App } from '../store/schema.js';
import type { SigningKey } from './oauth.js';

/**
 * Verified-credential lookups, kept for a few seconds, keyed by the token strings as sent: every
 * request needs the app, its access token and the signing key derived from both secrets, which
 * cost two hashes, two queries and four HMACs. What never changes (ids, kind, expiry, the keys) is
 * trusted from here; whether the app and token are still live is trusted only while the
 * credentials version (`revocations.ts`) is the one the entry was checked at, so a revocation by
 * any process or instance counts from the next request.
 */
export const TTL_MS = 5000;
const MAX_ENTRIES = 10_000;

interface Entry<T> {
  value: T;
  until: number;
}

export interface CachedApp {
  app: App;
  /** The credentials version at which the row was last known live (see `revocations.ts`). */
  checkedAt: string;
  secret: string;
  /** The signing key with an empty token secret (widget apps). */
  widgetKey: SigningKey;
}
export interface CachedToken {
  token: AccessToken;
  checkedAt: string;
  /** `appSecret&tokenSecret`, ready for HMAC. */
  key: SigningKey;
}

const apps = new Map<string, Entry<CachedApp>>();
/** By app, then token as sent: no `idApp:token` string to build and hash per request. */
const tokens = new Map<number, Map<string, Entry<CachedToken>>>();
let tokenCount = 0;

function get<T>(map: Map<string, Entry<T>>, key: string, now: number): T | undefined {
  const e = map.get(key);
  if (!e) return undefined;
  if (e.until <= now) {
    map.delete(key);
    return undefined;
  }
  return e.value;
}

function put<T>(map: Map<string, Entry<T>>, key: string, value: T, now: number): void {
  if (map.size >= MAX_ENTRIES) map.clear();
  map.set(key, { value, until: now + TTL_MS });
}

export const cachedApp = (tokenHash: string, now: number) => get(apps, tokenHash, now);
export const cacheApp = (tokenHash: string, value: CachedApp, now: number) =>
  put(apps, tokenHash, value, now);

export function cachedToken(idApp: number, token: string, now: number): CachedToken | undefined {
  const byToken = tokens.get(idApp);
  if (!byToken) return undefined;
  const size = byToken.size;
  const found = get(byToken, token, now);
  tokenCount -= size - byToken.size;
  return found;
}

export function cacheToken(idApp: number, token: string, value: CachedToken, now: number): void {
  if (tokenCount >= MAX_ENTRIES) {
    tokens.clear();
    tokenCount = 0;
  }
  let byToken = tokens.get(idApp);
  if (!byToken) {
    byToken = new Map();
    tokens.set(idApp, byToken);
  }
  const size = byToken.size;
  byToken.set(token, { value, until: now + TTL_MS });
  tokenCount += byToken.size - size;
}

import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { liveOriginOf, unverifiedLiveName } from './live-hosts.js';

/**
 * The scheme, host and port a client addressed, which is what it signed (RFC 5849 §3.4.1.2) and
 * what a `Location` must point to. Behind a reverse proxy the server cannot see it, so it comes
 * from PUBLIC_BASE_URL, or from `X-Forwarded-Proto`/`X-Forwarded-Host` when TRUST_PROXY is on.
 * A request to one of the OLD_BASE_URLS keeps its own host: that is the host the client signed.
 */
export interface PublicOrigin {
  /** `https://api.example.org` (default port omitted). */
  origin: string;
  /** A path the proxy strips before the request reaches us (from PUBLIC_BASE_URL), or ''. */
  basePath: string;
  /** Lower-case host (with port when not the default), as addressed. */
  host: string;
  /**
   * Sandbox: `https://<host>` when the addressed host is one of LIVE_HOSTS, which is what a client
   * with that host built in signed (README, "Clients with the live host built in"); else undefined.
   */
  live: string | undefined;
  /**
   * Sandbox, no PUBLIC_BASE_URL: the name of a live host the request addressed that is not verified
   * against (LIVE_HOSTS off or without it). The origin is then no address of this server's, and
   * authentication refuses the request. Undefined otherwise.
   */
  unverifiedLive: string | undefined;
}

function first(value: string | string[] | undefined): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  return v?.split(',')[0]?.trim() || undefined;
}

function normalizeHost(scheme: string, host: string): string {
  const h = host.toLowerCase();
  if (scheme === 'http' && h.endsWith(':80')) return h.slice(0, -3);
  if (scheme === 'https' && h.endsWith(':443')) return h.slice(0, -4);
  return h;
}

export function requestHost(req: FastifyRequest, config: Config): string {
  const forwarded = config.trustProxy ? first(req.headers['x-forwarded-host']) : undefined;
  return (forwarded ?? req.headers.host ?? 'localhost').toLowerCase();
}

/** PUBLIC_BASE_URL parsed once (every signed request needs it; a URL parse per request was waste). */
let configured: { url: string; origin: PublicOrigin } | undefined;

function configuredOrigin(url: string): PublicOrigin {
  if (configured?.url !== url) {
    const u = new URL(url);
    const scheme = u.protocol.replace(':', '');
    const host = normalizeHost(scheme, u.host);
    configured = {
      url,
      origin: {
        origin: `${scheme}://${host}`,
        basePath: u.pathname.replace(/\/+$/, ''),
        host,
        live: undefined,
        unverifiedLive: undefined,
      },
    };
  }
  return configured.origin;
}

/**
 * What one `Host` header resolves to, per scheme the request arrived on: every request of a client
 * carries the same host, and working it out again (lower-casing, the old hosts, a new origin
 * string) was waste. `fixed` is the configured origin, which the scheme does not change.
 */
interface HostOrigins {
  fixed: PublicOrigin | undefined;
  http?: PublicOrigin;
  https?: PublicOrigin;
}
/** Per configuration (tests run apps of several in one process); bounded, as clients choose the host. */
const byConfig = new WeakMap<Config, Map<string, HostOrigins>>();
const MAX_HOSTS = 64;

export function publicOrigin(req: FastifyRequest, config: Config): PublicOrigin {
  const host = req.headers.host;
  if (
    host === undefined ||
    (config.trustProxy &&
      (req.headers['x-forwarded-host'] !== undefined || req.headers['x-forwarded-proto'] !== undefined))
  ) {
    return resolveOrigin(req, config);
  }
  let hosts = byConfig.get(config);
  if (hosts === undefined) byConfig.set(config, (hosts = new Map()));
  let entry = hosts.get(host);
  if (entry === undefined) {
    const addressed = host.toLowerCase();
    if (hosts.size >= MAX_HOSTS) hosts.clear();
    // A live host's origin carries its own `live`: it is not the configured origin shared by all.
    const fixed =
      config.publicBaseUrl && !isOldHost(addressed, config) && liveOriginOf(addressed, config) === undefined;
    entry = { fixed: fixed ? resolveOrigin(req, config) : undefined };
    hosts.set(host, entry);
  }
  if (entry.fixed !== undefined) return entry.fixed;
  const protocol = req.protocol;
  if (protocol === 'http') return (entry.http ??= resolveOrigin(req, config));
  if (protocol === 'https') return (entry.https ??= resolveOrigin(req, config));
  return resolveOrigin(req, config);
}

function isOldHost(addressed: string, config: Config): boolean {
  const addressedBare = addressed.replace(/:\d+$/, '');
  return config.oldBaseUrls.some((h) => h === addressed || h === addressedBare);
}

function resolveOrigin(req: FastifyRequest, config: Config): PublicOrigin {
  const addressed = requestHost(req, config);
  const live = liveOriginOf(addressed, config);
  if (config.publicBaseUrl && !isOldHost(addressed, config)) {
    const configuredOne = configuredOrigin(config.publicBaseUrl);
    return live === undefined ? configuredOne : { ...configuredOne, live };
  }
  const forwardedProto = config.trustProxy ? first(req.headers['x-forwarded-proto']) : undefined;
  const scheme = (
    forwardedProto ?? (config.publicBaseUrl?.startsWith('https') ? 'https' : req.protocol)
  ).toLowerCase();
  const host = normalizeHost(scheme, addressed);
  const unverifiedLive = live === undefined ? unverifiedLiveName(addressed, config) : undefined;
  return { origin: `${scheme}://${host}`, basePath: '', host, live, unverifiedLive };
}

/** The request's raw path (as sent, output segment included) and raw query. */
export function rawPathAndQuery(req: FastifyRequest): { path: string; query: string } {
  const url = req.originalUrl;
  const q = url.indexOf('?');
  return q === -1 ? { path: url, query: '' } : { path: url.slice(0, q), query: url.slice(q + 1) };
}

import type { FastifyRequest } from 'fastify';
import { type Config, LIVE_HOST_NAMES, MOVED_LIVE_HOST } from '../config.js';
import { ApiError } from '../errors.js';
import { requestHost } from './origin.js';

/**
 * Clients with the live host built in (README, "Clients with the live host built in"): they reach
 * this server through a DNS answer or a hosts-file line, and sign for `https://<live host>/ws/…`
 * whatever address they actually talk to. Sandbox only: production never accepts them.
 */

/** What LIVE_HOSTS and LIVE_HOST_MOVED leave to verify against, per configuration. */
interface Hosts {
  set: ReadonlySet<string>;
  /** Every name a live client may address: the known live hosts and LIVE_HOSTS, verified or not. */
  names: ReadonlySet<string>;
  /** `https://host` of each, in LIVE_HOSTS' order. */
  origins: readonly string[];
}
const byConfig = new WeakMap<Config, Hosts>();

function hostsOf(config: Config): Hosts {
  let hosts = byConfig.get(config);
  if (hosts === undefined) {
    // The moved host answers 410 before anything looks at a signature; a client still signing for
    // it has not migrated, so it is no host to verify against either.
    const names =
      config.mode === 'sandbox'
        ? config.liveHosts.filter((h) => !(config.liveHostMoved && h === MOVED_LIVE_HOST))
        : [];
    hosts = {
      set: new Set(names),
      names: new Set([...LIVE_HOST_NAMES, ...config.liveHosts]),
      origins: names.map((h) => `https://${h}`),
    };
    byConfig.set(config, hosts);
  }
  return hosts;
}

/** The `https://…` origins a signature may have been made for besides the server's own (none in production). */
export function liveHostOrigins(config: Config): readonly string[] {
  return hostsOf(config).origins;
}

/**
 * `https://<host>` when the addressed host (its port dropped: clients sign without it) is a live
 * host, else undefined.
 */
export function liveOriginOf(addressed: string, config: Config): string | undefined {
  const hosts = hostsOf(config);
  if (hosts.set.size === 0) return undefined;
  const bare = bareHost(addressed);
  return hosts.set.has(bare) ? `https://${bare}` : undefined;
}

/**
 * The live host's name when the addressed host is one (a known live host, or one of LIVE_HOSTS) that
 * is not verified against: LIVE_HOSTS empty or without it, or production. The server never takes
 * such a name for its own address, so a live client's request is refused rather than verified
 * over the name it happened to address. Undefined otherwise.
 */
export function unverifiedLiveName(addressed: string, config: Config): string | undefined {
  const hosts = hostsOf(config);
  const bare = bareHost(addressed);
  return hosts.names.has(bare) && !hosts.set.has(bare) ? bare : undefined;
}

/** `Host` without its port, lower-case (`[::1]:8443` → `[::1]`). */
function bareHost(host: string): string {
  const h = host.toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  const colon = h.indexOf(':');
  return colon === -1 ? h : h.slice(0, colon);
}

/**
 * What the live API has answered on `api.cardmarket.com` since the move: `410 Gone` with the sentence
 * below (observed). The reference gives neither a content type nor an envelope; here it is the
 * API's error body like every other error (XML, or JSON after `output.json`), the sentence as its
 * `mkm_error_description`, for any path and method, before any signature is read.
 */
export const MOVED_BODY = 'Please switch to https://apiv2.cardmarket.com';

/**
 * LIVE_HOST_MOVED: refuses a request for the moved host as the live one does (throws the 410).
 * Undefined when the setting is off or in production.
 */
export function movedHostCheck(config: Config): ((request: FastifyRequest) => void) | undefined {
  if (config.mode !== 'sandbox' || !config.liveHostMoved) return undefined;
  return (request) => {
    if (bareHost(requestHost(request, config)) === MOVED_LIVE_HOST) throw new ApiError(410, MOVED_BODY);
  };
}

import type { Config } from '../config.js';

/** One year, the least browsers' preload lists accept. */
export const HSTS_MAX_AGE_SECONDS = 365 * 24 * 3600;

/**
 * `Strict-Transport-Security` for every answer (pages, the API, the raw answers to broken requests)
 * when the public base URL is https: browsers then refuse to reach this host over plain http for a
 * year, so a network attacker cannot strip TLS off the next visit. Sent whatever the connection
 * itself was (behind a TLS-terminating proxy the server sees http); browsers ignore it over http.
 */
export function hstsHeaders(
  config: Pick<Config, 'publicBaseUrl' | 'hstsIncludeSubdomains'>,
): Record<string, string> {
  if (!config.publicBaseUrl?.toLowerCase().startsWith('https://')) return {};
  const value = `max-age=${HSTS_MAX_AGE_SECONDS}${config.hstsIncludeSubdomains ? '; includeSubDomains' : ''}`;
  return { 'Strict-Transport-Security': value };
}

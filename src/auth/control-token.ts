import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Config } from '../config.js';

/**
 * The bearer token of the sandbox control API (`/_cardbazaar/`). CONTROL_TOKEN when set; otherwise
 * derived from the server key like every credential (docs/running-a-marketplace.md, "Credentials"):
 * with `:memory:` the key, and so the token, is new at every start; with a database file it stays
 * the same across restarts, and every process on that database (each worker, the CLI) knows it.
 */
export function controlTokenOf(config: Pick<Config, 'controlToken'>, serverKey: string): string {
  return (
    config.controlToken ??
    createHmac('sha256', serverKey).update('cardbazaar control token').digest('base64url')
  );
}

/**
 * Whether `header` is `Bearer <token>`. Compared in constant time: both sides are hashed first, so
 * neither the token's characters nor its length show in how long a wrong guess takes.
 */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const m = /^Bearer[ ]+(\S+)\s*$/i.exec(header ?? '');
  const given = createHash('sha256')
    .update(m ? m[1]! : '')
    .digest();
  const expected = createHash('sha256').update(token).digest();
  return timingSafeEqual(given, expected) && m !== null;
}

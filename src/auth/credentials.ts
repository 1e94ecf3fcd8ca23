import { createHash, createHmac, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Tokens and secrets are never stored. Each app and access token row holds a random salt; its
 * token and secret are derived from that salt with the server key (HMAC-SHA256), and the row keeps
 * only a SHA-256 of the token for lookup. A database dump therefore hands out no credential at all,
 * while the operator (who has the key) can print them again: `cardbazaar app show`, the demo
 * credentials on start, `cardbazaar request`. Rotating the key invalidates every credential.
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Real MKM app tokens have 16 characters and secrets 32; ours are a little longer, never shorter. */
export const APP_TOKEN_LENGTH = 20;
export const ACCESS_TOKEN_LENGTH = 32;
export const SECRET_LENGTH = 32;

export interface Credential {
  token: string;
  secret: string;
}

function derive(key: string, label: string, length: number): string {
  // Alphanumeric only, so a credential never needs percent-encoding in a header or a signing key.
  let out = '';
  let counter = 0;
  while (out.length < length) {
    const bytes = createHmac('sha256', key).update(`${label}:${counter++}`).digest();
    for (const b of bytes) {
      if (b < 248) out += ALPHABET[b % 62]; // 248 = 4 × 62: keeps the distribution uniform
      if (out.length === length) break;
    }
  }
  return out;
}

export type CredentialKind = 'app' | 'access';

export function deriveCredential(serverKey: string, kind: CredentialKind, salt: string): Credential {
  const tokenLength = kind === 'app' ? APP_TOKEN_LENGTH : ACCESS_TOKEN_LENGTH;
  return {
    token: derive(serverKey, `${kind}:token:${salt}`, tokenLength),
    secret: derive(serverKey, `${kind}:secret:${salt}`, SECRET_LENGTH),
  };
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function newSalt(): string {
  return randomBytes(18).toString('base64url');
}

/**
 * The sandbox's key when none is configured: created once, beside the SQLite file (or in `./data`
 * for other stores), readable by the owner only. Production refuses to start without SECRET_KEY.
 */
export function sandboxKeyFile(databaseLocation: string, isFile: boolean): string {
  return isFile ? join(dirname(databaseLocation), 'secret.key') : join('data', 'secret.key');
}

export function loadOrCreateKey(path: string): string {
  if (existsSync(path)) {
    const key = readFileSync(path, 'utf8').trim();
    if (key.length >= 32) return key;
  }
  mkdirSync(dirname(path), { recursive: true });
  const key = randomBytes(32).toString('base64url');
  writeFileSync(path, `${key}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return key;
}

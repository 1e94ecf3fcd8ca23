import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * Passwords of the website's accounts, hashed with scrypt (memory-hard, in node:crypto, so no native
 * package to build). The parameters are OWASP's listed equivalent of N=2^17,r=8,p=1 that costs 32 MiB
 * instead of 128: N=2^15, r=8, p=3 (about 0.3 s of one core here, off the event loop in libuv's
 * pool). They are stored in the hash, so raising them later keeps old hashes verifiable.
 * Passwords are never logged: nothing here, nor the forms that carry them, hands them to a logger.
 */

const N = 2 ** 15;
const R = 8;
const P = 3;
const KEY_LENGTH = 32;
const PREFIX = 'scrypt';

export const MIN_PASSWORD_LENGTH = 8;
/** Long enough for any passphrase; bounded so one request cannot make the server hash megabytes. */
export const MAX_PASSWORD_LENGTH = 200;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

const memoryFor = (n: number, r: number, p: number) => 128 * n * r * p + 32 * 1024 * 1024;

/** `scrypt$N$r$p$salt$hash`, salt and hash in base64url. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, { N, r: R, p: P, maxmem: memoryFor(N, R, P) });
  return [PREFIX, N, R, P, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/**
 * Whether `password` matches `stored`, compared in constant time. A missing hash (an account made
 * by the CLI that never got a password) is checked against a dummy one, so the answer takes as long
 * as for a real account and its timing does not tell which usernames exist.
 */
export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  const parts = (stored ?? DUMMY).split('$');
  if (parts.length !== 6 || parts[0] !== PREFIX) return false;
  const [n, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  const salt = Buffer.from(parts[4]!, 'base64url');
  const expected = Buffer.from(parts[5]!, 'base64url');
  const key = await derive(password, salt, { N: n, r, p, maxmem: memoryFor(n, r, p) });
  return (
    stored !== null &&
    stored !== undefined &&
    key.length === expected.length &&
    timingSafeEqual(key, expected)
  );
}

// A hash of nothing anyone can type (random at every start), with the current parameters.
const DUMMY = [
  PREFIX,
  N,
  R,
  P,
  randomBytes(16).toString('base64url'),
  randomBytes(KEY_LENGTH).toString('base64url'),
].join('$');

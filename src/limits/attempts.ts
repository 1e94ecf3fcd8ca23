import { createHash } from 'node:crypto';

/**
 * Keys of the attempt counters (`LimitStore.attempt`). Sign-in failures are counted per username
 * and client address together (the short lock), per address (whatever the username), and per
 * username from every address (the slowdown). The username is hashed (lower-cased first), so
 * whatever was typed makes a short key.
 */
const hashed = (username: string) =>
  createHash('sha256').update(username.trim().toLowerCase()).digest('base64url');
export const signInUserKey = (username: string) => `signin:user:${hashed(username)}`;
export const signInPairKey = (username: string, ip: string) => `signin:pair:${hashed(username)}:${ip}`;
export const signInAddressKey = (ip: string) => `signin:ip:${ip}`;
/** Registrations per client address, and on the whole site. */
export const registrationAddressKey = (ip: string) => `register:ip:${ip}`;
export const REGISTRATION_GLOBAL_KEY = 'register:all';

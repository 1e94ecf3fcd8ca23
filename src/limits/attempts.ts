import { createHash } from 'node:crypto';

/**
 * Keys of the attempt counters (`LimitStore.attempt`): sign-in attempts per username and per client
 * address. The username is hashed (lower-cased first), so whatever was typed makes a short key.
 */
export const signInUserKey = (username: string) =>
  `signin:user:${createHash('sha256').update(username.trim().toLowerCase()).digest('base64url')}`;
export const signInAddressKey = (ip: string) => `signin:ip:${ip}`;

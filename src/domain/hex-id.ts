import { randomBytes } from 'node:crypto';

/**
 * The API's string ids (`idMessage`, `idWant`): 24 hexadecimal digits, as the real API shows them
 * (e.g. `5ec4f6cf456a56266329f79c`). Random, so they say nothing about how many others exist.
 */
export function newHexId(): string {
  return randomBytes(12).toString('hex');
}

export function isHexId(text: string): boolean {
  return /^[0-9a-f]{24}$/.test(text);
}

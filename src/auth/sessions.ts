import { randomBytes } from 'node:crypto';
import type { DomainContext } from '../domain/context.js';
import {
  countSessionsOfUser,
  deleteExpiredSessions,
  deleteSession,
  deleteSessionsOfUser,
  findLiveSession,
  insertSession,
} from '../store/web-sessions.js';
import { hashToken } from './credentials.js';

/**
 * Website sign-ins. A session is a row (so every instance on one database knows it) keyed by the
 * SHA-256 of a random 256-bit id; the browser holds the id in a signed cookie (`src/web/session.ts`).
 * Every sign-in makes a new id, so an id planted before sign-in is worth nothing after it. Sessions
 * end at `expiresAt` (the marketplace clock, like every rule that depends on time), at sign-out, and
 * all of a user's at once with "sign out everywhere" or a password change.
 */

export interface SessionUser {
  idUser: number;
  username: string;
  idDisplayLanguage: number;
  expiresAt: number;
}

export async function startSession(
  ctx: DomainContext,
  idUser: number,
  lifetimeMs: number,
): Promise<{ id: string; expiresAt: number }> {
  const id = randomBytes(32).toString('base64url');
  const now = ctx.clock.now();
  const expiresAt = now + lifetimeMs;
  await ctx.database.transaction(async (tx) => {
    await deleteExpiredSessions(tx, now);
    await insertSession(tx, { sessionHash: hashToken(id), idUser, createdAt: now, expiresAt });
  });
  return { id, expiresAt };
}

/** The signed-in user behind a session id, or undefined when it is unknown, ended or expired. */
export async function findSession(ctx: DomainContext, id: string): Promise<SessionUser | undefined> {
  if (!id || id.length > 100) return undefined;
  const row = await findLiveSession(ctx.database.db, hashToken(id), ctx.clock.now());
  return row
    ? {
        idUser: row.idUser,
        username: row.username,
        idDisplayLanguage: row.idDisplayLanguage,
        expiresAt: row.expiresAt,
      }
    : undefined;
}

export async function endSession(ctx: DomainContext, id: string): Promise<void> {
  await deleteSession(ctx.database.db, hashToken(id));
}

/** "Sign out everywhere": every browser of this user is signed out; answers how many were. */
export async function endAllSessions(ctx: DomainContext, idUser: number): Promise<number> {
  return ctx.database.transaction((tx) => deleteSessionsOfUser(tx, idUser));
}

/** How many browsers the user is signed in on (the profile page offers to sign them all out). */
export async function countSessions(ctx: DomainContext, idUser: number): Promise<number> {
  return countSessionsOfUser(ctx.database.db, idUser, ctx.clock.now());
}
